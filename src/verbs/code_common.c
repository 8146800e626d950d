/* verbs/code_common.c: a code.* call's server, files, positions and symbol naming (code.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fdio.h"
#include "fs/lines.h"
#include "lsp/uri.h"
#include "verbs/code.h"
#include "verbs/handlers.h"
#include "verbs/state.h"

bool hermes_code_begin(hermes_code_ctx_t *ctx, const hermes_call_t *call, void *result,
                       const char *path, const char *language)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->call = call;
	ctx->result = result;
	const hermes_verbs_state_t *state = call->state;
	ctx->pool = state ? state->lsp : NULL;
	if (!ctx->pool) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "this executor has no language servers");
		return false;
	}
	char shown[256];
	if (path) {
		ctx->language = hermes_lsp_language_of(ctx->pool, path, &ctx->language_id);
		if (!ctx->language) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "Hermes knows no language for '%s' (by its extension: .c .h .cc "
			                   ".cpp .hpp .py .pyi .ts .tsx .js .jsx .mjs .go ...)",
			                   hermes_ws_shown(path, shown, sizeof shown));
			return false;
		}
	} else {
		const char *lang = language ? language : "";
		char probe[64];
		snprintf(probe, sizeof probe, "x.%s", strcmp(lang, "python") == 0       ? "py"
		                                      : strcmp(lang, "typescript") == 0 ? "ts"
		                                      : strcmp(lang, "javascript") == 0 ? "js"
		                                      : strcmp(lang, "cpp") == 0        ? "cpp"
		                                                                         : lang);
		ctx->language = hermes_lsp_language_of(ctx->pool, probe, &ctx->language_id);
		if (!ctx->language || strcmp(ctx->language, lang) != 0) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "language '%.64s' is none of c, cpp, python, javascript, "
			                   "typescript, go (give path or language)", lang);
			return false;
		}
	}
	hermes_error_t err = {0};
	if (hermes_lsp_pool_get(ctx->pool, call->host, ctx->language, call->cancel, &ctx->client,
	                        &err) < 0) {
		hermes_result_fail(result, err.code, "%s", err.message);
		ctx->client = NULL;
		return false;
	}
	return true;
}

void hermes_code_end(hermes_code_ctx_t *ctx)
{
	if (ctx->client)
		hermes_lsp_pool_release(ctx->pool, ctx->client);
	for (size_t i = 0; i < ctx->nfiles; i++) {
		hermes_code_file_t *f = &ctx->files[i];
		free(f->uri);
		free(f->path);
		free(f->text);
		free(f->lines);
		if (f->outline) {
			hermes_code_outline_clear(f->outline);
			free(f->outline);
		}
	}
	ctx->nfiles = 0;
	ctx->client = NULL;
}

/* Indexes where f's lines start, so that each use of a symbol finds its line at once rather than
 * by scanning the text from its start. Out of memory, lines are scanned for. */
static void index_lines(hermes_code_file_t *f)
{
	const char *end = f->text + f->len;
	size_t n = 1;
	for (const char *p = f->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	if (!(f->lines = malloc(n * sizeof *f->lines)))
		return;
	f->lines[0] = 0;
	f->nlines = 1;
	for (const char *p = f->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		f->lines[f->nlines++] = (size_t)(p + 1 - f->text);
}

/* Reads a workspace file into f; false once the call's result says why not. */
static bool read_text(hermes_code_ctx_t *ctx, const char *path, hermes_code_file_t *f)
{
	struct stat st;
	hermes_code_ctx_t *c = ctx;
	void *result = c->result;
	int fd = hermes_verbs_open_regular(c->call, path, "read", result, &st);
	if (fd < 0)
		return false;
	char shown[256];
	if (st.st_size > c->call->config->max_read_bytes) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE, "cannot read '%s': it is %lld bytes, "
		                   "over the read limit", hermes_ws_shown(path, shown, sizeof shown),
		                   (long long)st.st_size);
		close(fd);
		return false;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	int rc = hermes_read_all(fd, (size_t)c->call->config->max_read_bytes, &b);
	close(fd);
	if (rc < 0 || b.failed) {
		hermes_buf_free(&b);
		hermes_ws_fail(result, rc < 0 ? rc : -ENOMEM, "read", path);
		return false;
	}
	size_t bad;
	if (!hermes_text_valid(b.data ? b.data : "", b.len, &bad)) {
		hermes_buf_free(&b);
		hermes_result_fail(result, HERMES_E_NOT_TEXT, "cannot read '%s': it is not UTF-8 text "
		                   "(byte %zu)", hermes_ws_shown(path, shown, sizeof shown), bad);
		return false;
	}
	f->len = b.len;
	f->text = b.data ? b.data : strdup("");
	b.data = NULL;
	if (f->text)
		index_lines(f);
	return f->text != NULL;
}

/* Reads a workspace file quietly: false if it cannot be. */
static bool read_quiet(hermes_code_ctx_t *ctx, const char *path, hermes_code_file_t *f)
{
	const hermes_ws_t *ws = ctx->call->host;
	int fd;
	if (hermes_ws_open_path(ws, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, &fd) != 0)
		return false;
	struct stat st;
	hermes_buf_t b = HERMES_BUF_INIT;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	          st.st_size <= ctx->call->config->max_read_bytes &&
	          hermes_read_all(fd, (size_t)ctx->call->config->max_read_bytes, &b) == 0 && !b.failed;
	close(fd);
	if (!ok) {
		hermes_buf_free(&b);
		return false;
	}
	f->len = b.len;
	f->text = b.data ? b.data : strdup("");
	if (f->text)
		index_lines(f);
	return f->text != NULL;
}

/* The workspace-relative path of an absolute one, or NULL if it is outside. */
static const char *relative(const hermes_code_ctx_t *ctx, const char *abs)
{
	const hermes_ws_t *ws = ctx->call->host;
	size_t n = strlen(ws->root);
	if (strcmp(ws->root, "/") == 0)
		return abs + 1;
	if (strncmp(abs, ws->root, n) == 0 && abs[n] == '/')
		return abs + n + 1;
	return NULL;
}

char *hermes_code_relative_of(const hermes_code_ctx_t *ctx, const char *uri)
{
	char *abs = hermes_lsp_uri_path(uri);
	const char *rel = abs ? relative(ctx, abs) : NULL;
	char *out = rel ? strdup(rel) : NULL;
	free(abs);
	return out;
}

const hermes_json_t *hermes_code_loc_first(const hermes_json_t *r)
{
	if (r && r->type == HERMES_JSON_OBJECT)
		return r;
	return r && r->type == HERMES_JSON_ARRAY ? r->child : NULL;
}

const hermes_json_t *hermes_code_loc_next(const hermes_json_t *r, const hermes_json_t *it)
{
	return r->type == HERMES_JSON_ARRAY && it ? it->next : NULL;
}

bool hermes_code_loc_read(const hermes_json_t *loc, const char **uri, int64_t r[4])
{
	const hermes_json_t *u = hermes_json_member(loc, "uri");
	const hermes_json_t *range = hermes_json_member(loc, "range");
	if (!u) {
		/* A LocationLink: its target, and the range of the target's name. */
		u = hermes_json_member(loc, "targetUri");
		range = hermes_json_member(loc, "targetSelectionRange");
	}
	if (!u || !hermes_json_is_c_string(u) || !hermes_code_range(range, r))
		return false;
	*uri = u->str;
	return true;
}

bool hermes_code_loc_hermes(hermes_code_ctx_t *ctx, const hermes_json_t *loc,
                            hermes_code_file_t **file, int64_t r[4], char **path, int64_t *line,
                            int64_t *column, int64_t *end_line, int64_t *end_column)
{
	const char *uri;
	hermes_code_file_t *f;
	char *p;
	if (!hermes_code_loc_read(loc, &uri, r) || !(f = hermes_code_file(ctx, uri)) ||
	    !(p = strdup(f->path)))
		return false;
	*path = p;
	hermes_code_to_hermes(f, r[0], r[1], line, column);
	hermes_code_to_hermes(f, r[2], r[3], end_line, end_column);
	*file = f;
	return true;
}

static hermes_code_file_t *find_file(hermes_code_ctx_t *ctx, const char *uri)
{
	for (size_t i = 0; i < ctx->nfiles; i++)
		if (strcmp(ctx->files[i].uri, uri) == 0)
			return &ctx->files[i];
	return NULL;
}

char *hermes_code_fd_path(int fd)
{
	/* The kernel's name of an open file is already canonical: one readlink, where realpath()
	 * would read every component of the path again. */
	char link[64], buf[PATH_MAX + 1];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof buf);
	if (n <= 0 || n >= (ssize_t)sizeof buf || buf[0] != '/')
		return NULL;
	return strndup(buf, (size_t)n);
}

bool hermes_code_sync(hermes_code_ctx_t *ctx, hermes_code_file_t *f)
{
	if (f->synced)
		return true;
	hermes_error_t err = {0};
	if (hermes_lsp_sync(ctx->client, f->uri, ctx->language_id, f->text, f->len, NULL, &err) < 0) {
		hermes_result_fail(ctx->result, err.code, "%s", err.message);
		return false;
	}
	f->synced = true;
	return true;
}

hermes_code_file_t *hermes_code_open(hermes_code_ctx_t *ctx, const char *path)
{
	const hermes_ws_t *ws = ctx->call->host;
	/* The canonical path names the document, so that its URI is the one the server uses. */
	hermes_buf_t ub = HERMES_BUF_INIT;
	char *abs = NULL;
	int fd;
	int rc = hermes_ws_open_path(ws, path, O_PATH, &fd);
	if (rc == 0) {
		abs = hermes_code_fd_path(fd);
		close(fd);
	}
	if (!abs) {
		hermes_ws_fail(ctx->result, rc ? rc : -ENOENT, "read", path);
		return NULL;
	}
	hermes_lsp_uri_append(&ub, abs);
	char *uri = hermes_buf_finish(&ub);
	const char *rel = relative(ctx, abs);
	hermes_code_file_t *f = uri ? find_file(ctx, uri) : NULL;
	if (!f && uri && ctx->nfiles < HERMES_CODE_MAX_FILES) {
		f = &ctx->files[ctx->nfiles];
		memset(f, 0, sizeof *f);
		f->uri = uri;
		f->path = strdup(rel ? rel : abs);
		uri = NULL;
		if (!f->path || !read_text(ctx, rel ? rel : path, f)) {
			free(f->uri);
			free(f->path);
			free(abs);
			if (!f->path)
				hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory");
			return NULL;
		}
		ctx->nfiles++;
	}
	free(uri);
	free(abs);
	if (!f) {
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory, or too many files");
		return NULL;
	}
	if (!f->text) {
		hermes_result_fail(ctx->result, HERMES_E_NOT_FOUND, "cannot read '%s'",
		                   hermes_ws_shown(path, (char[256]){0}, 256));
		return NULL;
	}
	return hermes_code_sync(ctx, f) ? f : NULL;
}

hermes_code_file_t *hermes_code_file(hermes_code_ctx_t *ctx, const char *uri)
{
	hermes_code_file_t *f = find_file(ctx, uri);
	if (f)
		return f;
	char *abs = hermes_lsp_uri_path(uri);
	if (!abs)
		return NULL;
	if (ctx->nfiles == HERMES_CODE_MAX_FILES) {
		free(abs);
		return NULL;
	}
	f = &ctx->files[ctx->nfiles];
	memset(f, 0, sizeof *f);
	const char *rel = relative(ctx, abs);
	f->uri = strdup(uri);
	f->path = strdup(rel ? rel : abs);
	if (!f->uri || !f->path) {
		free(f->uri);
		free(f->path);
		free(abs);
		return NULL;
	}
	if (rel)
		read_quiet(ctx, rel, f);
	free(abs);
	ctx->nfiles++;
	return f;
}

const char *hermes_code_line(const hermes_code_file_t *f, int64_t line, size_t *len)
{
	*len = 0;
	if (!f || !f->text || line < 0)
		return "";
	const char *p = f->text, *end = f->text + f->len;
	if (f->lines) {
		if ((uint64_t)line >= f->nlines)
			return "";
		p += f->lines[line];
	}
	for (int64_t i = 0; !f->lines && i < line; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return "";
		p = nl + 1;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (n > 0 && p[n - 1] == '\r')
		n--;
	*len = n;
	return p;
}

void hermes_code_to_hermes(const hermes_code_file_t *f, int64_t line, int64_t character,
                           int64_t *out_line, int64_t *out_column)
{
	size_t len;
	const char *text = hermes_code_line(f, line, &len);
	*out_line = line + 1;
	/* Without the file's text (outside the workspace), a UTF-16 unit counts as a character. */
	*out_column = (f && f->text ? hermes_lsp_u16_to_chars(text, len, character) : character) + 1;
}

static bool integer(const hermes_json_t *obj, const char *name, int64_t *out)
{
	return hermes_json_integer(hermes_json_member(obj, name), 0, INT32_MAX, out) == 0;
}

bool hermes_code_range(const hermes_json_t *range, int64_t r[4])
{
	const hermes_json_t *s = hermes_json_member(range, "start"), *e = hermes_json_member(range, "end");
	return s && e && integer(s, "line", &r[0]) && integer(s, "character", &r[1]) &&
	       integer(e, "line", &r[2]) && integer(e, "character", &r[3]);
}

bool hermes_code_request(hermes_code_ctx_t *ctx, const char *method, const char *params,
                         hermes_json_doc_t **doc, const hermes_json_t **out)
{
	hermes_error_t err = {0};
	if (hermes_lsp_request(ctx->client, method, params, HERMES_CODE_REQUEST_MS, ctx->call->cancel,
	                       doc, out, &err) < 0) {
		hermes_result_fail(ctx->result, err.code, "%s", err.message);
		return false;
	}
	return true;
}

void hermes_code_position_params(hermes_buf_t *b, const char *uri, int64_t line, int64_t ch)
{
	hermes_buf_puts(b, "{\"textDocument\":{\"uri\":");
	hermes_buf_json_string(b, uri, strlen(uri));
	hermes_buf_printf(b, "},\"position\":{\"line\":%lld,\"character\":%lld}", (long long)line,
	                  (long long)ch);
}

/* Does sym's name path end with name_path (whole parts)? */
static bool path_matches(const char *sym_path, const char *name_path)
{
	size_t n = strlen(sym_path), m = strlen(name_path);
	if (m > n || strcmp(sym_path + n - m, name_path) != 0)
		return false;
	return m == n || sym_path[n - m - 1] == '/';
}

bool hermes_code_resolve(hermes_code_ctx_t *ctx, const char *name_path, const char *path,
                         bool has_line, int64_t line, bool has_column, int64_t column,
                         hermes_code_file_t **file, int64_t *lsp_line, int64_t *lsp_char)
{
	if (has_line != has_column || (has_line && !path) || (has_line && name_path) ||
	    (!has_line && !name_path)) {
		hermes_result_fail(ctx->result, HERMES_E_INVALID_ARGUMENT,
		                   "name the symbol either by namePath (and path, optionally) or by "
		                   "path, line and column, not both or neither");
		return false;
	}
	if (has_line) {
		hermes_code_file_t *f = hermes_code_open(ctx, path);
		if (!f)
			return false;
		size_t len;
		const char *text = hermes_code_line(f, line - 1, &len);
		*file = f;
		*lsp_line = line - 1;
		*lsp_char = hermes_lsp_chars_to_u16(text, len, column - 1);
		return true;
	}
	if (!*name_path || name_path[0] == '/' || name_path[strlen(name_path) - 1] == '/') {
		hermes_result_fail(ctx->result, HERMES_E_INVALID_ARGUMENT,
		                   "namePath '%.200s' is not names joined by '/'", name_path);
		return false;
	}
	hermes_code_outline_t found = {0}, *list = &found;
	const hermes_code_outline_t *o = NULL;
	if (path) {
		hermes_code_file_t *f = hermes_code_open(ctx, path);
		if (!f || !(o = hermes_code_outline(ctx, f)))
			return false;
	} else {
		if (!hermes_code_workspace_symbols(ctx, name_path, false, list))
			return false;
		o = list;
	}
	const hermes_code_sym_t *hit = NULL;
	size_t hits = 0;
	hermes_buf_t names = HERMES_BUF_INIT;
	for (size_t i = 0; i < o->count; i++) {
		const hermes_code_sym_t *s = &o->syms[i];
		if (!path_matches(s->name_path, name_path))
			continue;
		/* A declaration and a definition of one name in one outline are one symbol. */
		if (hit && strcmp(hit->name_path, s->name_path) == 0 && strcmp(hit->uri, s->uri) == 0)
			continue;
		if (hits < 5)
			hermes_buf_printf(&names, "%s%s (%s)", hits ? ", " : "", s->name_path,
			                  hermes_code_kind_name(s->kind));
		if (!hit)
			hit = s;
		hits++;
	}
	bool ok = false;
	char shown[256];
	if (!hit) {
		hermes_result_fail(ctx->result, HERMES_E_NOT_FOUND, "no symbol '%.200s' %s%s", name_path,
		                   path ? "in " : "in the workspace",
		                   path ? hermes_ws_shown(path, shown, sizeof shown) : "");
	} else if (hits > 1 && !path) {
		hermes_result_fail(ctx->result, HERMES_E_INVALID_ARGUMENT,
		                   "namePath '%.200s' names %zu symbols: %s%s; give a longer name path or "
		                   "path", name_path, hits, names.data ? names.data : "",
		                   hits > 5 ? ", ..." : "");
	} else {
		hermes_code_file_t *f = path ? hermes_code_open(ctx, path) : NULL;
		if (!path) {
			char *rel = hermes_code_relative_of(ctx, hit->uri);
			if (!rel)
				hermes_result_fail(ctx->result, HERMES_E_NOT_FOUND,
				                   "symbol '%.200s' is outside the workspace", name_path);
			else
				f = hermes_code_open(ctx, rel);
			free(rel);
		}
		if (f) {
			*file = f;
			*lsp_line = hit->sel[0];
			*lsp_char = hit->sel[1];
			ok = true;
		}
	}
	hermes_buf_free(&names);
	hermes_code_outline_clear(&found);
	return ok;
}

bool hermes_code_ask(hermes_code_ctx_t *ctx, const char *method, const char *name_path,
                const char *path, const char *language, bool has_line, int64_t line, bool has_column, int64_t column,
                const char *extra, hermes_json_doc_t **doc, const hermes_json_t **r,
                hermes_code_file_t **fp, int64_t *lp, int64_t *chp)
{
	hermes_code_file_t *f;
	int64_t l, ch;
	if (!path && !language) {
		hermes_result_fail(ctx->result, HERMES_E_INVALID_ARGUMENT,
		                   "give path (the file the symbol is in) or language (whose server to "
		                   "ask: c, cpp, python, javascript, typescript, go) with namePath");
		return false;
	}
	if (!hermes_code_begin(ctx, ctx->call, ctx->result, path, language))
		return false;
	if (!hermes_code_resolve(ctx, name_path, path, has_line, line, has_column, column, &f, &l, &ch))
		return false;
	/* Answers come from the server's view of the whole project (clangd's index, tsserver's
	 * project), built in the background after a start: before it is, a definition can be the
	 * import line and references only the file's own. Wait until it is built. */
	hermes_lsp_wait_settled(ctx->client, HERMES_CODE_SETTLE_MS, ctx->call->cancel);
	*fp = f;
	*lp = l;
	*chp = ch;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_code_position_params(&b, f->uri, l, ch);
	hermes_buf_puts(&b, extra ? extra : "");
	hermes_buf_putc(&b, '}');
	bool ok = !b.failed && hermes_code_request(ctx, method, b.data, doc, r);
	if (b.failed)
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory");
	hermes_buf_free(&b);
	return ok;
}
