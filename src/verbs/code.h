/* verbs/code.h: what the code.* handlers share (code_common.c, code_outline.c): a call's language
 * server, the files it read (for positions: LSP counts UTF-16 units, Hermes characters), naming a
 * symbol by name path or position, and outlines. */
#ifndef HERMES_VERBS_CODE_H
#define HERMES_VERBS_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/verb.h"
#include "lsp/pool.h"

#define HERMES_CODE_REQUEST_MS 60000  /* longest a code.* call waits for its server's answer */
#define HERMES_CODE_SETTLE_MS 60000   /* longest a workspace-wide call waits for indexing */
#define HERMES_CODE_DIAGNOSE_MS 20000 /* longest diagnose waits for a server, before and after */
#define HERMES_CODE_REANALYSE_MS 1500 /* how long diagnose waits for a text analysed again */
#define HERMES_CODE_MAX_FILES 64      /* files a call reads for positions and enclosing symbols */

/* A file a call read: its text, for positions and lines. */
typedef struct hermes_code_file {
	char *uri;
	char *path;       /* workspace-relative, or absolute outside the workspace */
	char *text;       /* NULL if it could not be read (outside the workspace, gone) */
	size_t len;
	bool synced;      /* the server was sent this text (didOpen/didChange) */
	size_t *lines;    /* where each line of text starts, or NULL (then lines are scanned for) */
	size_t nlines;
	struct hermes_code_outline *outline; /* its symbols, once asked for (code_outline.c) */
} hermes_code_file_t;

/* One symbol of an outline, flattened: nested symbols follow their parent. */
typedef struct hermes_code_sym {
	char *name;
	char *name_path;
	int kind;                     /* LSP SymbolKind, 1..26 */
	int depth;                    /* 0 for top level */
	char *uri;                    /* its file */
	int64_t sel[4];               /* its name: LSP start line, character, end line, character */
	int64_t range[4];             /* its whole text; range[0] == -1 if unknown */
} hermes_code_sym_t;

typedef struct hermes_code_outline {
	hermes_code_sym_t *syms;
	size_t count;
	/* For hermes_code_enclosing, in a file's outline: the symbols with a whole range, by where
	 * they start (order: indexes into syms), and reach[i] the furthest end of order[0..i]
	 * (positions packed as line << 32 | character). NULL if not made: syms are scanned. */
	size_t *order;
	int64_t *reach;
	size_t norder;
} hermes_code_outline_t;

/* A call's context. */
typedef struct hermes_code_ctx {
	const hermes_call_t *call;
	void *result;
	hermes_lsp_pool_t *pool;
	hermes_lsp_client_t *client;
	const char *language, *language_id;
	hermes_code_file_t files[HERMES_CODE_MAX_FILES];
	size_t nfiles;
} hermes_code_ctx_t;

/* Gets the server for path's language (or language, if path is NULL). False once result says
 * why not (InvalidArgument for a file of no known language; Unavailable: no server for it). */
bool hermes_code_begin(hermes_code_ctx_t *ctx, const hermes_call_t *call, void *result,
                       const char *path, const char *language);
/* Releases the server and frees what the call read. */
void hermes_code_end(hermes_code_ctx_t *ctx);

/* Reads the workspace file path and makes the server see its current text. NULL once result
 * says why not. */
hermes_code_file_t *hermes_code_open(hermes_code_ctx_t *ctx, const char *path);
/* Makes the server see f's text (f read, in the workspace, of the call's language); true, or false
 * once result says why not. */
bool hermes_code_sync(hermes_code_ctx_t *ctx, hermes_code_file_t *f);
/* The canonical absolute path of the open file fd (malloc'd, caller frees), or NULL. */
char *hermes_code_fd_path(int fd);
/* The file of uri, read if it is in the workspace (its text NULL otherwise, or if there is no room
 * left for another file). NULL if uri is not a file URI. Not synced. */
hermes_code_file_t *hermes_code_file(hermes_code_ctx_t *ctx, const char *uri);

/* The workspace-relative path of a file URI (malloc'd, caller frees), or NULL if it is not a
 * file URI or names a file outside the workspace. */
char *hermes_code_relative_of(const hermes_code_ctx_t *ctx, const char *uri);

/* The Locations of a definition or references answer r (a Location, or an array of Locations or
 * LocationLinks): the first (NULL if none), and the one after it (NULL after the last). */
const hermes_json_t *hermes_code_loc_first(const hermes_json_t *r);
const hermes_json_t *hermes_code_loc_next(const hermes_json_t *r, const hermes_json_t *it);
/* A Location's uri (pointing into loc) and range, or a LocationLink's target and the range of its
 * name. False if loc is neither. */
bool hermes_code_loc_read(const hermes_json_t *loc, const char **uri, int64_t r[4]);
/* A Location as Hermes gives it: *path (malloc'd, caller frees), 1-based lines and character
 * columns, and the file it is in (*file, read for its positions) and its LSP range r. False if
 * loc is no Location or out of memory (outputs then untouched, but for r). */
bool hermes_code_loc_hermes(hermes_code_ctx_t *ctx, const hermes_json_t *loc,
                            hermes_code_file_t **file, int64_t r[4], char **path, int64_t *line,
                            int64_t *column, int64_t *end_line, int64_t *end_column);

/* LSP position (0-based line, UTF-16 character) in f to 1-based line and character column. */
void hermes_code_to_hermes(const hermes_code_file_t *f, int64_t line, int64_t character,
                           int64_t *out_line, int64_t *out_column);
/* Reads an LSP Range object into r[4]; false if it is not one. */
bool hermes_code_range(const hermes_json_t *range, int64_t r[4]);
/* The text of f's 0-based line (without its ending), *len its length; "" if none. */
const char *hermes_code_line(const hermes_code_file_t *f, int64_t line, size_t *len);

/* Sends a request; false once result says why it failed. */
bool hermes_code_request(hermes_code_ctx_t *ctx, const char *method, const char *params,
                         hermes_json_doc_t **doc, const hermes_json_t **out);

/* The symbol args name: by line and column in path, or by name path (within path if given).
 * Sets *file (synced) and the LSP position. False once result says why not. */
bool hermes_code_resolve(hermes_code_ctx_t *ctx, const char *name_path, const char *path,
                         bool has_line, int64_t line, bool has_column, int64_t column,
                         hermes_code_file_t **file, int64_t *lsp_line, int64_t *lsp_char);

/* Starts the call's server (for path, or language) and asks method at the symbol named by
 * name_path/path or path/line/column, with extra (e.g. ",\"newName\":\"x\"") added to the
 * position params. On success *doc owns the answer, *r is its result, and *fp, *lp, *chp say
 * where it was asked. False once ctx->result says why not (hermes_code_end is still needed). */
bool hermes_code_ask(hermes_code_ctx_t *ctx, const char *method, const char *name_path,
                     const char *path, const char *language, bool has_line, int64_t line,
                     bool has_column, int64_t column, const char *extra, hermes_json_doc_t **doc,
                     const hermes_json_t **r, hermes_code_file_t **fp, int64_t *lp, int64_t *chp);

/* Appends {"textDocument":{"uri":...},"position":{...}} without the closing brace. */
void hermes_code_position_params(hermes_buf_t *b, const char *uri, int64_t line, int64_t ch);

/* f's outline (asks the server once per call; f must be synced). NULL once result says why. */
const hermes_code_outline_t *hermes_code_outline(hermes_code_ctx_t *ctx, hermes_code_file_t *f);
/* The symbols of the workspace named query (whole name, or containing it with substring), whose
 * containers match name path's other parts. *out: malloc'd array (free with
 * hermes_code_outline_clear on an outline holding it). False once result says why. */
bool hermes_code_workspace_symbols(hermes_code_ctx_t *ctx, const char *query, bool substring,
                                   hermes_code_outline_t *out);
void hermes_code_outline_clear(hermes_code_outline_t *o);
/* The innermost symbol of o whose whole range holds the LSP position, or NULL. */
const hermes_code_sym_t *hermes_code_enclosing(const hermes_code_outline_t *o, int64_t line,
                                               int64_t ch);
/* The lower-case name of an LSP SymbolKind ("function"), or "unknown"; and back (0 if none). */
const char *hermes_code_kind_name(int kind);
int hermes_code_kind_of(const char *name);

/* Appends the diagnostics the server published for f as the JSON array text (one that is not an
 * array adds none) to *list of *count (grown with realloc; one element more than used is kept
 * allocated, so that an empty list is not NULL). False if out of memory (the items added so far
 * stay, complete or with NULL strings). */
bool hermes_code_diagnostics_add(const hermes_code_file_t *f, const char *text,
                                 hermes_code_diagnostic_t **list, size_t *count);

/* After an editing verb wrote path (workspace-relative): if a language server for its language
 * runs for the workspace, it is sent the file's new text (didOpen or didChange), so that the next
 * code.* answer is computed from it. Never starts a server; never fails (the edit is made). */
void hermes_code_written(const hermes_call_t *call, const char *path);

/* An edit's diagnose (defs/verbs.def: EditDiagnostics). Before the edit of paths[0..n)
 * (workspace-relative): waits until no other diagnose edit of this process works on any of them,
 * starts each one's language server if need be and takes its diagnostics (at most
 * HERMES_CODE_DIAGNOSE_MS in all). NULL only if out of memory. Never fails the call: a file whose
 * diagnostics cannot be taken gets the reason, reported by hermes_code_diagnose_end. */
typedef struct hermes_code_diagnose hermes_code_diagnose_t;
hermes_code_diagnose_t *hermes_code_diagnose_begin(const hermes_call_t *call,
                                                   const char *const *paths, size_t n);
/* After the edit: for each of written[0..nw) (the paths of begin the edit wrote, in the order to
 * report them; none if it failed), waits for the server's diagnostics of the file's new text (at
 * most HERMES_CODE_DIAGNOSE_MS in all) and sets *out to a malloc'd array of *count entries (the
 * result's diagnostics field; out may be NULL to report nothing). Frees d (NULL is fine: every
 * written file is then reported without diagnostics) and lets other diagnose edits of its files
 * go on. */
void hermes_code_diagnose_end(hermes_code_diagnose_t *d, const char *const *written, size_t nw,
                              hermes_edit_diagnostics_t **out, size_t *count);

#endif
