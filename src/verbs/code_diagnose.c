/* verbs/code_diagnose.c: the editing verbs' diagnose argument (code.h): a file's diagnostics
 * taken from its language server before an edit and after it, and what the edit introduced and
 * fixed (defs/verbs.def: EditDiagnostics). Diagnostics are a courtesy of the write: nothing here
 * makes a write fail; each file gets a sentence saying why its diagnostics are missing instead. */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/executor.h"
#include "verbs/code.h"
#include "verbs/state.h"

extern const hermes_type_desc_t hermes_type_CodeDiagnostic;
extern const hermes_type_desc_t hermes_type_CodeDiagnosticsResult;
extern const hermes_type_desc_t hermes_type_EditDiagnostics;

typedef struct diag_file {
	char *path;                 /* workspace-relative, as the verb was given it */
	char *key;                  /* its place in the busy set: the root and the path */
	char *unavailable;          /* why it has no diagnostics, or NULL */
	hermes_code_ctx_t *ctx;     /* holds the server and the text before the edit */
	hermes_code_file_t *old;    /* the text before the edit; NULL if the file did not exist */
	char *before;               /* the diagnostics of old (JSON array text); NULL: none */
	char *kept;                 /* those the server had of old before it was sent again */
	hermes_code_ctx_t *actx;    /* after the edit: holds the server and the new text */
	hermes_code_file_t *nf;     /* the new text, synced */
} diag_file_t;

struct hermes_code_diagnose {
	const hermes_call_t *call;
	diag_file_t *files;
	size_t n;
	bool holds_keys;            /* its keys are in the busy set */
};

/* The files diagnose edits are working on, in this process. An edit with diagnose takes its
 * files' diagnostics before the write and waits for the server's analysis of the text it wrote:
 * a second such edit of a file in between would make the first one's text never analysed (the
 * server goes on with the newest) and mix the two edits up. So they take turns per file; an edit
 * of several files takes all of them at once, or waits, which cannot deadlock. Process-wide, as
 * the file is: two executors on one workspace share its files. */
static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t busy_cond = PTHREAD_COND_INITIALIZER;
static char **busy;
static size_t busy_n, busy_cap;

static bool busy_has(const char *key)
{
	for (size_t i = 0; i < busy_n; i++)
		if (strcmp(busy[i], key) == 0)
			return true;
	return false;
}

/* Puts d's keys in the busy set once none is there. False if the call was cancelled first or
 * memory ran out (nothing taken). */
static bool busy_take(hermes_code_diagnose_t *d)
{
	bool ok = false;
	pthread_mutex_lock(&busy_lock);
	for (;;) {
		bool free_ = true;
		for (size_t i = 0; free_ && i < d->n; i++)
			free_ = !busy_has(d->files[i].key);
		if (free_)
			break;
		if (hermes_cancel_requested(d->call->cancel))
			goto out;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&busy_cond, &busy_lock, &ts);
	}
	if (busy_n + d->n > busy_cap) {
		size_t cap = (busy_n + d->n) * 2;
		char **grown = realloc(busy, cap * sizeof *busy);
		if (!grown)
			goto out;
		busy = grown;
		busy_cap = cap;
	}
	for (size_t i = 0; i < d->n; i++)
		busy[busy_n++] = d->files[i].key;
	ok = true;
out:
	pthread_mutex_unlock(&busy_lock);
	return ok;
}

/* Spells one file one way: "a.c", "./a.c" and "/root//a.c" name the same (lexically: the
 * workspace resolves symlinks and refuses "..", so this is enough for the paths it accepts). */
static void key_normalize(char *key)
{
	char *w = key;
	for (const char *r = key; *r;) {
		if (r[0] == '/' && (r[1] == '/' || (r[1] == '.' && (r[2] == '/' || !r[2])))) {
			r += r[1] == '/' ? 1 : 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	if (w > key + 1 && w[-1] == '/')
		w[-1] = '\0';
}

static void busy_give(hermes_code_diagnose_t *d)
{
	pthread_mutex_lock(&busy_lock);
	for (size_t i = 0; i < d->n; i++)
		for (size_t j = 0; j < busy_n; j++)
			if (busy[j] == d->files[i].key) {
				busy[j] = busy[--busy_n];
				break;
			}
	pthread_cond_broadcast(&busy_cond);
	pthread_mutex_unlock(&busy_lock);
}

static void set_unavailable(diag_file_t *f, const char *fmt, ...) HERMES_PRINTF(2, 3);
static void set_unavailable(diag_file_t *f, const char *fmt, ...)
{
	if (f->unavailable)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&f->unavailable, fmt, ap) < 0)
		f->unavailable = NULL;
	va_end(ap);
	/* Without memory for the sentence, a fixed one still says they are missing. */
	if (!f->unavailable)
		f->unavailable = strdup("out of memory");
}

/* Why hermes_lsp_diagnostics_of answered rc for f's text (when), into f. */
static void why_missing(diag_file_t *f, const hermes_call_t *call, hermes_lsp_client_t *client,
                        int rc, const char *when)
{
	if (rc == 1) {
		set_unavailable(f, "'%s' was changed again (by another write) before its language "
		                "server analysed the text %s", f->path, when);
	} else if (hermes_cancel_requested(call->cancel)) {
		set_unavailable(f, "the call was cancelled while it waited for the diagnostics of '%s'",
		                f->path);
	} else if (!hermes_lsp_client_alive(client)) {
		hermes_error_t err = {0};
		hermes_lsp_dead_error(client, &err);
		set_unavailable(f, "%s", err.message);
	} else {
		set_unavailable(f, "the language server published no diagnostics of '%s' %s within "
		                "%d seconds", f->path, when, HERMES_CODE_DIAGNOSE_MS / 1000);
	}
}

/* Starts f's server and makes it see f's text before the edit (f->old), or says why not. */
static void open_before(hermes_code_diagnose_t *d, diag_file_t *f)
{
	const hermes_call_t *call = d->call;
	const hermes_verbs_state_t *state = call->state;
	hermes_lsp_pool_t *pool = state ? state->lsp : NULL;
	const char *language_id;
	const hermes_verb_desc_t *desc = hermes_verb_desc_find("code.diagnostics");
	if (!pool) {
		set_unavailable(f, "this executor has no language servers");
		return;
	}
	if (!hermes_lsp_language_of(pool, f->path, &language_id)) {
		set_unavailable(f, "Hermes knows no language for '%s' (by its extension: .c .h .cc "
		                ".cpp .hpp .py .pyi .ts .tsx .js .jsx .mjs .go ...), so no language "
		                "server to ask", f->path);
		return;
	}
	/* A policy that keeps code.diagnostics from its callers keeps this way to it shut too. */
	if (!desc || !hermes_config_allows(call->config, desc)) {
		set_unavailable(f, "code.diagnostics is not among the verbs allowed (--allow, --deny)");
		return;
	}
	hermes_code_diagnostics_result_t scratch = {.common.succeeded = true};
	if (!(f->ctx = malloc(sizeof *f->ctx))) {
		set_unavailable(f, "out of memory");
		return;
	}
	if (!hermes_code_begin(f->ctx, call, &scratch, f->path, NULL)) {
		set_unavailable(f, "%s", scratch.common.error_message ? scratch.common.error_message
		                                                       : "no language server");
		goto out;
	}
	f->old = hermes_code_open(f->ctx, f->path);
	if (!f->old) {
		/* A file the edit creates had no diagnostics before it. */
		if (scratch.common.error_code != HERMES_E_NOT_FOUND)
			set_unavailable(f, "%s", scratch.common.error_message ? scratch.common.error_message
			                                                       : "cannot read the file");
	}
out:
	hermes_struct_clear(&hermes_type_CodeDiagnosticsResult, &scratch);
}

/* Takes the diagnostics of f->old, until deadline; those of a text analysed again
 * (f->kept) until grace. */
static void wait_before(hermes_code_diagnose_t *d, diag_file_t *f, int64_t deadline,
                        int64_t grace)
{
	if (f->unavailable || !f->old)
		return;
	hermes_lsp_client_t *c = f->ctx->client;
	const hermes_code_file_t *o = f->old;
	int64_t left = (f->kept ? grace : deadline) - hermes_lsp_now_ms();
	int rc = hermes_lsp_diagnostics_of(c, o->uri, o->text, o->len, left > 0 ? (int)left : 0,
	                                   d->call->cancel, &f->before);
	/* Nothing new about this text: the kept ones stand. */
	if (rc < 0 && f->kept && !hermes_cancel_requested(d->call->cancel)) {
		f->before = f->kept;
		f->kept = NULL;
		rc = 0;
	}
	if (rc != 0)
		why_missing(f, d->call, c, rc, "before the edit");
}

/* If the server has diagnostics of f->old already, keeps them in f->kept and sends the text
 * again to be analysed afresh: they may predate a change of another file (a header), which
 * must not count as this edit's. A server that finds nothing changed may publish nothing
 * (clangd): the kept ones stand after HERMES_CODE_REANALYSE_MS. */
static void reanalyse(diag_file_t *f)
{
	hermes_error_t err = {0};
	if (f->unavailable || !f->old ||
	    hermes_lsp_diagnostics_of(f->ctx->client, f->old->uri, f->old->text, f->old->len, 0,
	                              NULL, &f->kept) != 0)
		return;
	if (hermes_lsp_reanalyse(f->ctx->client, f->old->uri, &err) != 0) {
		f->before = f->kept; /* not sent again: what the server has is the answer */
		f->kept = NULL;
	}
}

hermes_code_diagnose_t *hermes_code_diagnose_begin(const hermes_call_t *call,
                                                   const char *const *paths, size_t n)
{
	hermes_code_diagnose_t *d = calloc(1, sizeof *d);
	if (!d || !(d->files = calloc(n ? n : 1, sizeof *d->files))) {
		free(d);
		return NULL;
	}
	d->call = call;
	const hermes_ws_t *ws = call->host;
	while (d->n < n) {
		diag_file_t *f = &d->files[d->n++];
		if (!(f->path = strdup(paths[d->n - 1])) ||
		    asprintf(&f->key, "%s/%s", ws->root, paths[d->n - 1]) < 0) {
			f->key = NULL;
			hermes_code_diagnose_end(d, NULL, 0, NULL, NULL);
			return NULL;
		}
		key_normalize(f->key);
	}
	if (!(d->holds_keys = busy_take(d))) {
		for (size_t i = 0; i < n; i++)
			set_unavailable(&d->files[i], "%s", hermes_cancel_requested(call->cancel)
			                ? "the call was cancelled before the diagnostics were taken"
			                : "out of memory");
		return d;
	}
	/* Every file sent before any is waited for: the server analyses them meanwhile. */
	for (size_t i = 0; i < n; i++) {
		open_before(d, &d->files[i]);
		reanalyse(&d->files[i]);
	}
	int64_t now = hermes_lsp_now_ms();
	for (size_t i = 0; i < n; i++)
		if (!d->files[i].before)
			wait_before(d, &d->files[i], now + HERMES_CODE_DIAGNOSE_MS,
			            now + HERMES_CODE_REANALYSE_MS);
	return d;
}

static bool same(const hermes_code_diagnostic_t *a, const hermes_code_diagnostic_t *b)
{
	return strcmp(a->message ? a->message : "", b->message ? b->message : "") == 0 &&
	       ((!a->code && !b->code) || (a->code && b->code && strcmp(a->code, b->code) == 0));
}

/* Moves the items of list[0..n) not marked in taken to a new array *out of *count; clears the
 * others and frees list. False if out of memory (then *out holds none and list is freed). */
static bool keep_unmatched(hermes_code_diagnostic_t *list, size_t n, const bool *taken,
                           hermes_code_diagnostic_t **out, size_t *count)
{
	*out = calloc(n + 1, sizeof **out);
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		if (*out && !taken[i])
			(*out)[(*count)++] = list[i];
		else
			hermes_struct_clear(&hermes_type_CodeDiagnostic, &list[i]);
	}
	free(list);
	return *out != NULL;
}

/* Makes f's server see its text after the edit (f->nf), or says why not. */
static void open_after(hermes_code_diagnose_t *d, diag_file_t *f)
{
	hermes_code_diagnostics_result_t scratch = {.common.succeeded = true};
	/* A context of its own: the one of before holds the old text, for the fixed ones'
	 * positions. The server is running: this is cheap. */
	if (!(f->actx = malloc(sizeof *f->actx)))
		set_unavailable(f, "out of memory");
	else if (!hermes_code_begin(f->actx, d->call, &scratch, f->path, NULL) ||
	         !(f->nf = hermes_code_open(f->actx, f->path)))
		set_unavailable(f, "%s", scratch.common.error_message ? scratch.common.error_message
		                                                       : "cannot read the file");
	hermes_struct_clear(&hermes_type_CodeDiagnosticsResult, &scratch);
}

/* Takes the diagnostics of f->nf, until deadline, and fills o from both sets. */
static void take_after(hermes_code_diagnose_t *d, diag_file_t *f, int64_t deadline,
                       hermes_edit_diagnostics_t *o)
{
	hermes_code_ctx_t *ctx = f->actx;
	hermes_code_file_t *nf = f->nf;
	char *after = NULL;
	hermes_code_diagnostic_t *bl = NULL, *al = NULL;
	size_t bn = 0, an = 0;
	bool *btaken = NULL, *ataken = NULL;
	int64_t left = deadline - hermes_lsp_now_ms();
	int rc = hermes_lsp_diagnostics_of(ctx->client, nf->uri, nf->text, nf->len,
	                                   left > 0 ? (int)left : 0, d->call->cancel, &after);
	if (rc != 0) {
		why_missing(f, d->call, ctx->client, rc, "after the edit");
		goto out;
	}
	if ((f->before && !hermes_code_diagnostics_add(f->old, f->before, &bl, &bn)) ||
	    !hermes_code_diagnostics_add(nf, after, &al, &an) ||
	    !(btaken = calloc(bn + 1, sizeof *btaken)) || !(ataken = calloc(an + 1, sizeof *ataken))) {
		set_unavailable(f, "out of memory");
		goto out;
	}
	/* Each diagnostic of the new text takes one equal one of the old text, if any is left: a
	 * multiset difference both ways. */
	for (size_t i = 0; i < an; i++)
		for (size_t j = 0; j < bn; j++)
			if (!btaken[j] && same(&al[i], &bl[j])) {
				ataken[i] = btaken[j] = true;
				break;
			}
	o->total = (int64_t)an;
	o->has_total = true;
	bool ok = keep_unmatched(al, an, ataken, &o->introduced, &o->introduced_count);
	ok = keep_unmatched(bl, bn, btaken, &o->fixed, &o->fixed_count) && ok;
	al = bl = NULL;
	an = bn = 0;
	if (!ok) {
		hermes_struct_clear(&hermes_type_EditDiagnostics, o);
		set_unavailable(f, "out of memory");
	}
out:
	for (size_t i = 0; i < an; i++)
		hermes_struct_clear(&hermes_type_CodeDiagnostic, &al[i]);
	for (size_t i = 0; i < bn; i++)
		hermes_struct_clear(&hermes_type_CodeDiagnostic, &bl[i]);
	free(al);
	free(bl);
	free(ataken);
	free(btaken);
	free(after);
}

void hermes_code_diagnose_end(hermes_code_diagnose_t *d, const char *const *written, size_t nw,
                              hermes_edit_diagnostics_t **out, size_t *count)
{
	hermes_edit_diagnostics_t *list = out ? calloc(nw + 1, sizeof *list) : NULL;
	diag_file_t **of = list ? calloc(nw + 1, sizeof *of) : NULL;
	size_t n = list && of ? nw : 0;
	/* Every file sent before any is waited for, as before the edit. */
	for (size_t w = 0; w < n; w++) {
		for (size_t i = 0; d && !of[w] && i < d->n; i++)
			if (strcmp(d->files[i].path, written[w]) == 0)
				of[w] = &d->files[i];
		if (of[w] && !of[w]->unavailable && !of[w]->actx)
			open_after(d, of[w]);
	}
	int64_t deadline = hermes_lsp_now_ms() + HERMES_CODE_DIAGNOSE_MS;
	for (size_t w = 0; w < n; w++) {
		diag_file_t *f = of[w];
		hermes_edit_diagnostics_t *o = &list[w];
		if (f && !f->unavailable && f->nf)
			take_after(d, f, deadline, o);
		o->path = strdup(written[w]);
		if (!f || f->unavailable) {
			/* Without d, memory ran out before the edit; a path it did not name is the
			 * caller's mistake, said rather than hidden. */
			if (f)
				o->unavailable = strdup(f->unavailable);
			else if (asprintf(&o->unavailable, d ? "the diagnostics of '%s' were not taken "
			                  "before the edit" : "out of memory for the diagnostics of '%s'",
			                  written[w]) < 0)
				o->unavailable = NULL;
			o->has_total = false;
		}
	}
	free(of);
	if (out) {
		*out = list;
		*count = n;
	}
	if (!d)
		return;
	if (d->holds_keys)
		busy_give(d);
	for (size_t i = 0; i < d->n; i++) {
		diag_file_t *f = &d->files[i];
		if (f->ctx)
			hermes_code_end(f->ctx);
		free(f->ctx);
		if (f->actx)
			hermes_code_end(f->actx);
		free(f->actx);
		free(f->path);
		free(f->key);
		free(f->unavailable);
		free(f->before);
		free(f->kept);
	}
	free(d->files);
	free(d);
}
