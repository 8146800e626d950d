/* verbs/code_outline.c: symbols as the code.* verbs see them: a file's outline
 * (textDocument/documentSymbol, hierarchical or flat), the workspace's symbols by name
 * (workspace/symbol), flattened with their name paths, and LSP's symbol kinds by name. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "verbs/code.h"

static const char *const kinds[] = {
	NULL, "file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enummember", "struct", "event", "operator",
	"typeparameter",
};

const char *hermes_code_kind_name(int kind)
{
	return kind > 0 && kind < (int)(sizeof kinds / sizeof *kinds) ? kinds[kind] : "unknown";
}

int hermes_code_kind_of(const char *name)
{
	for (int i = 1; i < (int)(sizeof kinds / sizeof *kinds); i++)
		if (strcmp(kinds[i], name) == 0)
			return i;
	return 0;
}

void hermes_code_outline_clear(hermes_code_outline_t *o)
{
	for (size_t i = 0; i < o->count; i++) {
		free(o->syms[i].name);
		free(o->syms[i].name_path);
		free(o->syms[i].uri);
	}
	free(o->syms);
	free(o->order);
	free(o->reach);
	o->syms = NULL;
	o->order = NULL;
	o->reach = NULL;
	o->count = o->norder = 0;
}

static int64_t packed(int64_t line, int64_t ch)
{
	return (int64_t)((uint64_t)line << 32 | (uint64_t)ch);
}

typedef struct {
	int64_t start;
	size_t i;
} by_start_t;

static int cmp_start(const void *a_, const void *b_)
{
	const by_start_t *a = a_, *b = b_;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Makes o's index for hermes_code_enclosing; without memory, o is left to be scanned. */
static void index_outline(hermes_code_outline_t *o)
{
	size_t n = 0;
	for (size_t i = 0; i < o->count; i++)
		n += o->syms[i].range[0] >= 0;
	if (!n || !(o->order = malloc(n * sizeof *o->order)) ||
	    !(o->reach = malloc(n * sizeof *o->reach))) {
		free(o->order);
		o->order = NULL;
		o->reach = NULL;
		return;
	}
	by_start_t *tmp = malloc(n * sizeof *tmp);
	if (!tmp) {
		free(o->order);
		free(o->reach);
		o->order = NULL;
		o->reach = NULL;
		return;
	}
	for (size_t i = 0, k = 0; i < o->count; i++)
		if (o->syms[i].range[0] >= 0)
			tmp[k++] = (by_start_t){packed(o->syms[i].range[0], o->syms[i].range[1]), i};
	qsort(tmp, n, sizeof *tmp, cmp_start);
	for (size_t k = 0; k < n; k++)
		o->order[k] = tmp[k].i;
	free(tmp);
	o->norder = n;
	for (size_t i = 0; i < n; i++) {
		const int64_t *r = o->syms[o->order[i]].range;
		int64_t end = packed(r[2], r[3]);
		o->reach[i] = i && o->reach[i - 1] > end ? o->reach[i - 1] : end;
	}
}

/* Appends a symbol; false if out of memory. */
static bool add(hermes_code_outline_t *o, size_t *cap, const char *name, const char *parent_path,
                int kind, int depth, const char *uri, const int64_t sel[4], const int64_t range[4])
{
	if (o->count == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		hermes_code_sym_t *grown = realloc(o->syms, n * sizeof *grown);
		if (!grown)
			return false;
		o->syms = grown;
		*cap = n;
	}
	hermes_code_sym_t *s = &o->syms[o->count];
	memset(s, 0, sizeof *s);
	s->name = strdup(name);
	size_t plen = parent_path && *parent_path ? strlen(parent_path) + 1 : 0;
	s->name_path = malloc(plen + strlen(name) + 1);
	s->uri = strdup(uri);
	if (!s->name || !s->name_path || !s->uri) {
		free(s->name);
		free(s->name_path);
		free(s->uri);
		return false;
	}
	if (plen) {
		memcpy(s->name_path, parent_path, plen - 1);
		s->name_path[plen - 1] = '/';
	}
	strcpy(s->name_path + plen, name);
	s->kind = kind;
	s->depth = depth;
	memcpy(s->sel, sel, sizeof s->sel);
	memcpy(s->range, range, sizeof s->range);
	o->count++;
	return true;
}

static int kind_of(const hermes_json_t *sym)
{
	int64_t k = 0;
	hermes_json_integer(hermes_json_member(sym, "kind"), 1, 1000, &k);
	return (int)k;
}

/* Adds DocumentSymbol items and their children, depth-first. */
static bool add_tree(hermes_code_outline_t *o, size_t *cap, const hermes_json_t *items,
                     const char *parent_path, int depth, const char *uri)
{
	if (!items || items->type != HERMES_JSON_ARRAY || depth > 64)
		return true;
	for (const hermes_json_t *it = items->child; it; it = it->next) {
		const hermes_json_t *name = hermes_json_member(it, "name");
		int64_t sel[4], range[4];
		if (!name || !hermes_json_is_c_string(name) ||
		    !hermes_code_range(hermes_json_member(it, "selectionRange"), sel) ||
		    !hermes_code_range(hermes_json_member(it, "range"), range))
			continue;
		if (!add(o, cap, name->str, parent_path, kind_of(it), depth, uri, sel, range))
			return false;
		/* The parent's name path is copied: add() may move the array. */
		char *path = strdup(o->syms[o->count - 1].name_path);
		if (!path)
			return false;
		bool ok = add_tree(o, cap, hermes_json_member(it, "children"), path, depth + 1, uri);
		free(path);
		if (!ok)
			return false;
	}
	return true;
}

/* A SymbolInformation's container ("ns::Class", "a.b") as a name path ("ns/Class", "a/b"). */
static char *container_path(const hermes_json_t *sym)
{
	const hermes_json_t *c = hermes_json_member(sym, "containerName");
	if (!c || !hermes_json_is_c_string(c) || !*c->str)
		return strdup("");
	char *out = malloc(c->len + 1), *w = out;
	if (!out)
		return NULL;
	for (const char *p = c->str; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			*w++ = '/';
			p++;
		} else {
			*w++ = *p == '.' ? '/' : *p;
		}
	}
	*w = '\0';
	return out;
}

/* Adds flat SymbolInformation (or WorkspaceSymbol) items. */
static bool add_flat(hermes_code_outline_t *o, size_t *cap, const hermes_json_t *items,
                     const char *default_uri)
{
	for (const hermes_json_t *it = items->child; it; it = it->next) {
		const hermes_json_t *name = hermes_json_member(it, "name");
		const hermes_json_t *loc = hermes_json_member(it, "location");
		const hermes_json_t *uri = hermes_json_member(loc, "uri");
		int64_t sel[4], range[4] = {-1, -1, -1, -1};
		if (!name || !hermes_json_is_c_string(name))
			continue;
		if (!hermes_code_range(hermes_json_member(loc, "range"), sel))
			sel[0] = sel[1] = sel[2] = sel[3] = 0; /* a WorkspaceSymbol with only its uri */
		const char *u = uri && hermes_json_is_c_string(uri) ? uri->str : default_uri;
		if (!u)
			continue;
		char *parent = container_path(it);
		if (!parent)
			return false;
		bool ok = add(o, cap, name->str, parent, kind_of(it), 0, u, sel, range);
		free(parent);
		if (!ok)
			return false;
	}
	return true;
}

/* A copy of o (malloc'd, with its own strings), or NULL if out of memory; *bytes what it costs. */
static hermes_code_outline_t *outline_copy(const hermes_code_outline_t *o, size_t *bytes)
{
	hermes_code_outline_t *c = calloc(1, sizeof *c);
	size_t n = sizeof *c + o->count * sizeof *o->syms;
	if (!c || (o->count && !(c->syms = calloc(o->count, sizeof *c->syms)))) {
		free(c);
		return NULL;
	}
	for (; c->count < o->count; c->count++) {
		const hermes_code_sym_t *s = &o->syms[c->count];
		hermes_code_sym_t *d = &c->syms[c->count];
		*d = *s;
		d->name = strdup(s->name);
		d->name_path = strdup(s->name_path);
		d->uri = strdup(s->uri);
		if (!d->name || !d->name_path || !d->uri) {
			c->count++;
			hermes_code_outline_clear(c);
			free(c);
			return NULL;
		}
		n += strlen(s->name) + strlen(s->name_path) + strlen(s->uri) + 3;
	}
	if (o->order) {
		c->order = malloc(o->norder * sizeof *c->order);
		c->reach = malloc(o->norder * sizeof *c->reach);
		if (!c->order || !c->reach) {
			hermes_code_outline_clear(c);
			free(c);
			return NULL;
		}
		memcpy(c->order, o->order, o->norder * sizeof *c->order);
		memcpy(c->reach, o->reach, o->norder * sizeof *c->reach);
		c->norder = o->norder;
		n += o->norder * (sizeof *c->order + sizeof *c->reach);
	}
	if (bytes)
		*bytes = n;
	return c;
}

static void outline_free(void *o)
{
	hermes_code_outline_clear(o);
	free(o);
}

/* Memo copier: the call gets its own copy of the kept outline. */
static bool outline_take(const void *kept, void *arg)
{
	return (*(hermes_code_outline_t **)arg = outline_copy(kept, NULL)) != NULL;
}

const hermes_code_outline_t *hermes_code_outline(hermes_code_ctx_t *ctx, hermes_code_file_t *f)
{
	if (f->outline)
		return f->outline;
	/* The outline of this very text may be kept from an earlier call: clangd rebuilds a file's
	 * syntax tree to answer documentSymbol (tens of ms), which made code.references slow. */
	int64_t stamp = -1;
	if (f->text && hermes_lsp_memo_get(ctx->client, f->uri, f->text, f->len, &stamp,
	                                   outline_take, &f->outline))
		return f->outline;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"textDocument\":{\"uri\":");
	hermes_buf_json_string(&b, f->uri, strlen(f->uri));
	hermes_buf_puts(&b, "}}");
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	bool ok = !b.failed && hermes_code_request(ctx, "textDocument/documentSymbol", b.data, &doc, &r);
	hermes_buf_free(&b);
	if (!ok) {
		if (!ctx->result || ((hermes_result_common_t *)ctx->result)->succeeded)
			hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory");
		hermes_json_doc_free(doc);
		return NULL;
	}
	hermes_code_outline_t *o = calloc(1, sizeof *o);
	size_t cap = 0;
	ok = o != NULL;
	if (ok && r->type == HERMES_JSON_ARRAY && r->child) {
		/* DocumentSymbol has selectionRange; SymbolInformation has location. */
		if (hermes_json_member(r->child, "selectionRange"))
			ok = add_tree(o, &cap, r, "", 0, f->uri);
		else
			ok = add_flat(o, &cap, r, f->uri);
	}
	hermes_json_doc_free(doc);
	if (!ok) {
		if (o)
			hermes_code_outline_clear(o);
		free(o);
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory for an outline");
		return NULL;
	}
	index_outline(o);
	f->outline = o;
	/* Kept only if the server still has the text the answer was for (stamp: see memo.c). */
	size_t bytes;
	hermes_code_outline_t *kept = stamp >= 0 ? outline_copy(o, &bytes) : NULL;
	if (kept)
		hermes_lsp_memo_put(ctx->client, f->uri, stamp, kept, bytes, outline_free);
	return o;
}

bool hermes_code_workspace_symbols(hermes_code_ctx_t *ctx, const char *query, bool substring,
                                   hermes_code_outline_t *out)
{
	const char *last = strrchr(query, '/');
	last = last ? last + 1 : query;
	/* Workspace answers come from the server's index: wait until it is built. */
	hermes_lsp_wait_settled(ctx->client, HERMES_CODE_SETTLE_MS, ctx->call->cancel);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"query\":");
	hermes_buf_json_string(&b, last, strlen(last));
	hermes_buf_putc(&b, '}');
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	bool ok = !b.failed && hermes_code_request(ctx, "workspace/symbol", b.data, &doc, &r);
	hermes_buf_free(&b);
	if (!ok) {
		hermes_json_doc_free(doc);
		return false;
	}
	hermes_code_outline_t all = {0};
	size_t cap = 0;
	if (r->type == HERMES_JSON_ARRAY && !add_flat(&all, &cap, r, NULL)) {
		hermes_json_doc_free(doc);
		hermes_code_outline_clear(&all);
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory for symbols");
		return false;
	}
	hermes_json_doc_free(doc);
	/* Servers match fuzzily: keep the names asked for, whole or (substring) as a part, and
	 * containers that end with the name path's other parts. */
	size_t prefix = (size_t)(last - query);
	size_t kept = 0;
	for (size_t i = 0; i < all.count; i++) {
		hermes_code_sym_t *s = &all.syms[i];
		bool keep = substring ? strstr(s->name, last) != NULL : strcmp(s->name, last) == 0;
		if (keep && prefix) {
			size_t n = strlen(s->name_path), m = strlen(s->name);
			/* s->name_path is "container/name": compare its container with query's prefix. */
			size_t clen = n - m;
			keep = clen >= prefix &&
			       strncmp(s->name_path + clen - prefix, query, prefix) == 0 &&
			       (clen == prefix || s->name_path[clen - prefix - 1] == '/');
		}
		if (keep) {
			all.syms[kept++] = *s;
		} else {
			free(s->name);
			free(s->name_path);
			free(s->uri);
		}
	}
	all.count = kept;
	*out = all;
	return true;
}

/* The same with o's index: the symbols starting at or before the position, from the last one
 * back while one of them or any before reaches past it. */
static const hermes_code_sym_t *enclosing_indexed(const hermes_code_outline_t *o, int64_t line,
                                                  int64_t ch)
{
	int64_t at = packed(line, ch);
	size_t lo = 0, hi = o->norder; /* the first whose start is past the position */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const int64_t *r = o->syms[o->order[mid]].range;
		if (packed(r[0], r[1]) <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	const hermes_code_sym_t *best = NULL;
	size_t best_i = 0;
	for (size_t k = lo; k-- > 0 && o->reach[k] > at;) {
		size_t i = o->order[k];
		const int64_t *r = o->syms[i].range;
		if (packed(r[2], r[3]) <= at)
			continue;
		/* As the scan in array order: the deepest, the later of equals. */
		if (!best || o->syms[i].depth > best->depth ||
		    (o->syms[i].depth == best->depth && i > best_i)) {
			best = &o->syms[i];
			best_i = i;
		}
	}
	return best;
}

const hermes_code_sym_t *hermes_code_enclosing(const hermes_code_outline_t *o, int64_t line,
                                               int64_t ch)
{
	if (o && o->order)
		return enclosing_indexed(o, line, ch);
	const hermes_code_sym_t *best = NULL;
	for (size_t i = 0; o && i < o->count; i++) {
		const int64_t *r = o->syms[i].range;
		if (r[0] < 0)
			continue;
		bool after_start = line > r[0] || (line == r[0] && ch >= r[1]);
		bool before_end = line < r[2] || (line == r[2] && ch < r[3]);
		if (after_start && before_end && (!best || o->syms[i].depth >= best->depth))
			best = &o->syms[i];
	}
	return best;
}
