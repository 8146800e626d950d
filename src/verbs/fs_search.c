/* verbs/fs_search.c: fs.search, a regular-expression search over the workspace that finds what
 * ripgrep finds. Speed comes from where rg gets it: the walk and the search run on every usable
 * processor (walk.c); a file is read in one read() into a buffer each worker reuses (big files in
 * chunks); the pattern is JIT-compiled and run over the whole buffer rather than line by line,
 * lines being located only around matches; a plain literal is found with memmem(). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "fs/pcre2_lib.h"
#include "fs/ignore.h"
#include "fs/lines.h"
#include "fs/walk.h"
#include "fs/workspace.h"

#define SEARCH_MAX_RESULTS 10000
#define SEARCH_MAX_CONTEXT 10
#define LINE_SHOWN 2048            /* bytes of a line a result shows */
#define LINE_SHOWN_BEFORE 256      /* of a cut line, bytes shown before the match */
#define BINARY_PROBE 8192          /* a NUL byte here makes the file binary */
#define WHOLE_READ (4u << 20)      /* files up to this size are read in one read() */
#define CHUNK (1u << 20)           /* bigger ones this much at a time */
#define MAX_LINE (64u << 20)       /* a line longer than this ends the search of its file */
#define LOCAL_FLUSH 64             /* matches a worker gathers before taking the lock */
#define JIT_STACK_MAX (8u << 20)

typedef struct sworker {
	char *buf;
	size_t cap;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	pcre2_jit_stack *js;
	hermes_search_match_t *local; /* matches of the current file, not yet in the heap */
	size_t nlocal, caplocal;
	size_t file_found;            /* matches found in the current file */
	bool file_truncated;          /* the current file had more than maxResults */
	/* The largest kept key when the heap was last seen full (a copy: it only ever decreases, so
	 * an old one just skips less). A match after it cannot be kept. */
	char *cutoff_path;
	int64_t cutoff_line;
	int file_vs_cutoff;           /* strcmp(current path, cutoff_path); -1 without a cutoff */
} sworker_t;

typedef struct search {
	const hermes_call_t *call;
	pcre2_code *code;
	bool jit;
	bool line_mode;               /* run the pattern on each line: it looks at subject edges */
	const char *literal;          /* not NULL: find this with memmem() instead */
	size_t literal_len;
	int context;
	size_t max;
	atomic_llong files;
	pthread_mutex_t mu;           /* guards what follows */
	hermes_search_match_t *heap;  /* the max smallest (path, line) so far, a max-heap */
	size_t nheap;
	bool truncated;
	hermes_errcode_t err_code;    /* a failure that ends the search, or HERMES_E_NONE */
	char err_msg[512];
	sworker_t *workers;
	int nworkers;
} search_t;

/* ---- results ------------------------------------------------------------------------------ */

static void match_clear(hermes_search_match_t *m)
{
	free(m->path);
	free(m->text);
	for (size_t i = 0; i < m->before_count; i++)
		free(m->before[i]);
	free(m->before);
	for (size_t i = 0; i < m->after_count; i++)
		free(m->after[i]);
	free(m->after);
	memset(m, 0, sizeof *m);
}

static int key_cmp(const hermes_search_match_t *a, const hermes_search_match_t *b)
{
	int c = strcmp(a->path, b->path);
	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

static void sift_down(hermes_search_match_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, big = i;
		if (l < n && key_cmp(&h[l], &h[big]) > 0)
			big = l;
		if (r < n && key_cmp(&h[r], &h[big]) > 0)
			big = r;
		if (big == i)
			return;
		hermes_search_match_t t = h[i];
		h[i] = h[big];
		h[big] = t;
		i = big;
	}
}

/* Keeps m if it is among the max smallest keys (the heap owns it then), else frees it. Under mu. */
static void heap_offer(search_t *s, hermes_search_match_t *m)
{
	if (s->nheap < s->max) {
		size_t i = s->nheap++;
		s->heap[i] = *m;
		while (i > 0 && key_cmp(&s->heap[(i - 1) / 2], &s->heap[i]) < 0) {
			hermes_search_match_t t = s->heap[i];
			s->heap[i] = s->heap[(i - 1) / 2];
			s->heap[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
		return;
	}
	s->truncated = true;
	if (key_cmp(m, &s->heap[0]) < 0) {
		match_clear(&s->heap[0]);
		s->heap[0] = *m;
		sift_down(s->heap, s->nheap, 0);
	} else {
		match_clear(m);
	}
}

static void flush_local(search_t *s, sworker_t *wk)
{
	if (wk->nlocal == 0 && !wk->file_truncated)
		return;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < wk->nlocal; i++)
		heap_offer(s, &wk->local[i]);
	if (wk->file_truncated)
		s->truncated = true;
	if (s->nheap == s->max && (!wk->cutoff_path || strcmp(wk->cutoff_path, s->heap[0].path) != 0)) {
		char *copy = strdup(s->heap[0].path);
		if (copy) {
			free(wk->cutoff_path);
			wk->cutoff_path = copy;
		}
	}
	if (s->nheap == s->max && wk->cutoff_path && strcmp(wk->cutoff_path, s->heap[0].path) == 0)
		wk->cutoff_line = s->heap[0].line;
	pthread_mutex_unlock(&s->mu);
	wk->nlocal = 0;
	wk->file_truncated = false;
}

static int set_failure(search_t *s, hermes_errcode_t code, const char *fmt, ...)
	HERMES_PRINTF(3, 4);
static int set_failure(search_t *s, hermes_errcode_t code, const char *fmt, ...)
{
	pthread_mutex_lock(&s->mu);
	if (s->err_code == HERMES_E_NONE) {
		s->err_code = code;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err_msg, sizeof s->err_msg, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&s->mu);
	return 1; /* ends the walk */
}

/* A line for a result: at most LINE_SHOWN bytes of it, cut at UTF-8 boundaries around at (or
 * from its start if at is SIZE_MAX), with "[...N bytes...]" where bytes were left out. */
static char *shown_line(const char *p, size_t n, size_t at)
{
	if (n <= LINE_SHOWN)
		return strndup(p, n);
	size_t start = 0;
	if (at != SIZE_MAX && at >= LINE_SHOWN - LINE_SHOWN_BEFORE) {
		start = at - LINE_SHOWN_BEFORE;
		if (start > n - LINE_SHOWN)
			start = n - LINE_SHOWN;
		while (start < n && ((unsigned char)p[start] & 0xC0) == 0x80)
			start++;
	}
	size_t end = start + LINE_SHOWN < n ? start + LINE_SHOWN : n;
	while (end > start && end < n && ((unsigned char)p[end] & 0xC0) == 0x80)
		end--;
	char *out = malloc(end - start + 64);
	if (!out)
		return NULL;
	size_t o = 0;
	if (start)
		o += (size_t)sprintf(out, "[...%zu bytes...]", start);
	memcpy(out + o, p + start, end - start);
	o += end - start;
	if (end < n)
		o += (size_t)sprintf(out + o, "[...%zu bytes...]", n - end);
	out[o] = '\0';
	return out;
}

/* The length of the line at p without a final '\r' (rg keeps it; a result shows no ending). */
static size_t content_len(const char *p, size_t n)
{
	return n > 0 && p[n - 1] == '\r' ? n - 1 : n;
}

/* ---- searching one buffer ----------------------------------------------------------------- */

/* What scan() knows about the buffer while it searches a region of it. */
typedef struct region {
	const char *path;
	size_t floor;      /* first byte of the first line in the buffer */
	size_t after_end;  /* context lines after a match may reach this far */
	size_t cur_off;    /* a line start, and its number: lines are counted from here */
	int64_t cur_line;
} region_t;

static int re_match(search_t *s, sworker_t *wk, const char *subj, size_t len, size_t start,
                    size_t *at)
{
	int rc = s->jit ? pcre2_jit_match(s->code, (PCRE2_SPTR)subj, len, start, 0, wk->md, wk->mc)
	                : pcre2_match(s->code, (PCRE2_SPTR)subj, len, start, 0, wk->md, wk->mc);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0)
		return rc;
	*at = pcre2_get_ovector_pointer(wk->md)[0];
	return 1;
}

static int pcre_failure(search_t *s, int rc, const char *path)
{
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(rc, msg, sizeof msg);
	bool limit = rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	             rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT;
	char shown[256];
	return set_failure(s, limit ? HERMES_E_INVALID_ARGUMENT : HERMES_E_INTERNAL,
	                   "cannot search '%s': %s (PCRE2: %s)", hermes_ws_shown(path, shown, sizeof shown),
	                   limit ? "the pattern needs too much backtracking; make it more specific"
	                         : "the pattern could not be matched",
	                   (const char *)msg);
}

/* Records the matching line buf[ls..le) whose first match starts at column col (0-based).
 * 0; 1 to stop this file (it has more than maxResults matches); -1 failure (set in s). */
static int record(search_t *s, sworker_t *wk, region_t *r, size_t ls, size_t le, size_t col)
{
	const char *buf = wk->buf;
	r->cur_line += (int64_t)hermes_count_newlines(buf + r->cur_off, ls - r->cur_off);
	r->cur_off = ls;
	if (wk->file_found >= s->max || wk->file_vs_cutoff > 0 ||
	    (wk->file_vs_cutoff == 0 && wk->cutoff_path && r->cur_line > wk->cutoff_line)) {
		/* It could not be kept, nor could any later line of this file: more matched than
		 * maxResults, and the rest of the file need not be searched. */
		wk->file_truncated = true;
		return 1;
	}
	wk->file_found++;
	if (wk->nlocal == wk->caplocal) {
		size_t ncap = wk->caplocal ? wk->caplocal * 2 : 16;
		hermes_search_match_t *nl = realloc(wk->local, ncap * sizeof *nl);
		if (!nl)
			goto oom;
		wk->local = nl;
		wk->caplocal = ncap;
	}
	hermes_search_match_t *m = &wk->local[wk->nlocal];
	memset(m, 0, sizeof *m);
	m->line = r->cur_line;
	m->column = (int64_t)col + 1;
	m->path = strdup(r->path);
	m->text = shown_line(buf + ls, content_len(buf + ls, le - ls), col);
	if (!m->path || !m->text)
		goto oom_m;
	if (s->context > 0) {
		/* Before: walk back over up to context lines, then copy them in file order. */
		size_t starts[SEARCH_MAX_CONTEXT + 1];
		size_t n = 0, at = ls;
		while (n < (size_t)s->context && at > r->floor) {
			const char *nl = at - 1 > r->floor ? memrchr(buf + r->floor, '\n', at - 1 - r->floor) : NULL;
			at = nl ? (size_t)(nl - buf) + 1 : r->floor;
			starts[n++] = at;
		}
		m->before = calloc(n ? n : 1, sizeof *m->before);
		if (!m->before)
			goto oom_m;
		for (size_t i = 0; i < n; i++) {
			size_t b = starts[n - 1 - i];
			size_t e = (i + 1 < n) ? starts[n - 2 - i] - 1 : ls - 1;
			if (!(m->before[m->before_count] = shown_line(buf + b, content_len(buf + b, e - b), SIZE_MAX)))
				goto oom_m;
			m->before_count++;
		}
		m->after = calloc((size_t)s->context, sizeof *m->after);
		if (!m->after)
			goto oom_m;
		size_t p = le + 1;
		while (m->after_count < (size_t)s->context && p < r->after_end) {
			const char *nl = memchr(buf + p, '\n', r->after_end - p);
			size_t e = nl ? (size_t)(nl - buf) : r->after_end;
			if (!(m->after[m->after_count] = shown_line(buf + p, content_len(buf + p, e - p), SIZE_MAX)))
				goto oom_m;
			m->after_count++;
			p = e + 1;
		}
	} else {
		m->before = calloc(1, sizeof *m->before); /* empty lists, not missing ones */
		m->after = calloc(1, sizeof *m->after);
		if (!m->before || !m->after)
			goto oom_m;
	}
	wk->nlocal++;
	if (wk->nlocal >= LOCAL_FLUSH) {
		bool truncated = wk->file_truncated;
		wk->file_truncated = false;
		flush_local(s, wk);
		wk->file_truncated = truncated;
	}
	return 0;
oom_m:
	match_clear(m);
oom:
	set_failure(s, HERMES_E_INTERNAL, "cannot search: out of memory");
	return -1;
}

/* Searches the lines in buf[start..end) (end is a line start or the end of the data). 0, 1 to
 * stop this file, -1 failure. */
static int search_region(search_t *s, sworker_t *wk, region_t *r, size_t start, size_t end)
{
	const char *buf = wk->buf;
	size_t p = start;
	while (p < end) {
		size_t ms, ls, le, col;
		if (s->line_mode) {
			const char *nl = memchr(buf + p, '\n', end - p);
			ls = p;
			le = nl ? (size_t)(nl - buf) : end;
			int rc = re_match(s, wk, buf + ls, le - ls, 0, &col);
			if (rc < 0) {
				pcre_failure(s, rc, r->path);
				return -1;
			}
			if (rc > 0) {
				int rr = record(s, wk, r, ls, le, col);
				if (rr)
					return rr;
			}
			p = le + 1;
			continue;
		}
		if (s->literal) {
			const char *m = memmem(buf + p, end - p, s->literal, s->literal_len);
			if (!m)
				break;
			ms = (size_t)(m - buf);
		} else {
			int rc = re_match(s, wk, buf + r->floor, end - r->floor, p - r->floor, &ms);
			if (rc < 0) {
				pcre_failure(s, rc, r->path);
				return -1;
			}
			if (rc == 0)
				break;
			ms += r->floor;
			/* An empty match at the very end is on a last line without an ending, if any. */
			if (ms >= end && !(ms == end && buf[end - 1] != '\n'))
				break;
		}
		const char *prev = ms > p ? memrchr(buf + p, '\n', ms - p) : NULL;
		ls = prev ? (size_t)(prev - buf) + 1 : p;
		const char *next = ms < end ? memchr(buf + ms, '\n', end - ms) : NULL;
		le = next ? (size_t)(next - buf) : end;
		if (s->literal) {
			col = ms - ls;
		} else {
			/* The buffer match may run past the line: the line alone decides, and gives the
			 * column of its first match. */
			int rc = re_match(s, wk, buf + ls, le - ls, 0, &col);
			if (rc < 0) {
				pcre_failure(s, rc, r->path);
				return -1;
			}
			if (rc == 0) {
				p = le + 1;
				continue;
			}
		}
		int rr = record(s, wk, r, ls, le, col);
		if (rr)
			return rr;
		p = le + 1;
	}
	return 0;
}

static int ensure_cap(sworker_t *wk, size_t need)
{
	if (need <= wk->cap)
		return 0;
	size_t ncap = wk->cap ? wk->cap : 256 * 1024;
	while (ncap < need)
		ncap *= 2;
	char *nb = realloc(wk->buf, ncap);
	if (!nb)
		return -1;
	wk->buf = nb;
	wk->cap = ncap;
	return 0;
}

/* The start of the line n lines before the line starting at at (not before floor). */
static size_t lines_back(const char *buf, size_t floor, size_t at, int n)
{
	while (n-- > 0 && at > floor) {
		const char *nl = at - 1 > floor ? memrchr(buf + floor, '\n', at - 1 - floor) : NULL;
		at = nl ? (size_t)(nl - buf) + 1 : floor;
	}
	return at;
}

/* Searches the open regular file fd (size from fstat) as path. 0 done (or skipped), non-zero to
 * end the walk (failure set in s, or HERMES_WS_ECANCELLED). */
static int scan(search_t *s, sworker_t *wk, int fd, off_t size, const char *path)
{
	region_t r = {path, 0, 0, 0, 1};
	size_t len = 0, pos = 0, nul_checked = 0;
	bool eof = false, first = true;
	int rc = 0;
	wk->file_found = 0;
	wk->file_truncated = false;
	wk->nlocal = 0;
	wk->file_vs_cutoff = wk->cutoff_path ? strcmp(path, wk->cutoff_path) : -1;
	for (;;) {
		if (!eof) {
			bool whole = first && size > 0 && (uint64_t)size <= WHOLE_READ;
			size_t want = whole ? (size_t)size : CHUNK;
			if (ensure_cap(wk, len + want + 1) < 0) {
				rc = set_failure(s, HERMES_E_INTERNAL, "cannot search: out of memory");
				break;
			}
			size_t got = 0;
			while (got < want) {
				ssize_t n = read(fd, wk->buf + len + got, want - got);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0) {
					eof = true; /* a read error ends the file like its end does */
					break;
				}
				got += (size_t)n;
			}
			if (whole && got == want)
				eof = true; /* the size fstat gave: a file growing meanwhile is read as it was */
			len += got;
		}
		if (first) {
			first = false;
			if (len > 0 && memchr(wk->buf, 0, len < BINARY_PROBE ? len : BINARY_PROBE))
				return 0; /* binary: skipped, not counted */
			atomic_fetch_add_explicit(&s->files, 1, memory_order_relaxed);
			if (len >= 3 && memcmp(wk->buf, "\xEF\xBB\xBF", 3) == 0)
				r.floor = pos = r.cur_off = 3; /* the byte order mark is not part of line 1 */
		}
		/* A NUL past the probe ends the search before the line that holds it. */
		size_t data_end = len;
		bool last = eof;
		const char *z = nul_checked < len ? memchr(wk->buf + nul_checked, 0, len - nul_checked) : NULL;
		nul_checked = len;
		if (z) {
			size_t zo = (size_t)(z - wk->buf);
			const char *nl = zo > r.floor ? memrchr(wk->buf + r.floor, '\n', zo - r.floor) : NULL;
			data_end = nl ? (size_t)(nl - wk->buf) + 1 : r.floor;
			if (data_end < pos)
				data_end = pos;
			last = true;
		}
		size_t region_end = data_end;
		if (!last) {
			/* Complete lines only, leaving context lines after them for the after-context. */
			const char *nl = len > pos ? memrchr(wk->buf + pos, '\n', len - pos) : NULL;
			region_end = nl ? lines_back(wk->buf, pos, (size_t)(nl - wk->buf) + 1, s->context) : pos;
			if (region_end <= pos) {
				if (len - r.floor <= MAX_LINE)
					continue; /* read more */
				last = true; /* a giant line: stop at it */
				region_end = data_end;
			}
		}
		r.after_end = last ? data_end : len;
		int sr = search_region(s, wk, &r, pos, region_end);
		if (sr < 0) {
			rc = 1;
			break;
		}
		if (sr > 0 || last)
			break;
		pos = region_end;
		if (hermes_cancel_requested(s->call->cancel)) {
			rc = HERMES_WS_ECANCELLED;
			break;
		}
		/* Slide: keep context lines before pos for the before-context of what comes next. */
		size_t keep = lines_back(wk->buf, r.floor, pos, s->context);
		if (r.cur_off < keep) {
			r.cur_line += (int64_t)hermes_count_newlines(wk->buf + r.cur_off, keep - r.cur_off);
			r.cur_off = keep;
		}
		memmove(wk->buf, wk->buf + keep, len - keep);
		len -= keep;
		pos -= keep;
		nul_checked -= keep;
		r.cur_off -= keep;
		r.floor = 0;
	}
	if (rc == 0)
		flush_local(s, wk);
	else
		for (size_t i = 0; i < wk->nlocal; i++)
			match_clear(&wk->local[i]);
	wk->nlocal = 0;
	return rc;
}

static int on_file(void *ctx, int worker, int dirfd, const char *name, const char *path, size_t len)
{
	(void)len;
	search_t *s = ctx;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* unreadable or gone: skipped, as rg does (it only complains) */
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		rc = scan(s, &s->workers[worker], fd, st.st_size, path);
	close(fd);
	return rc;
}

/* ---- the verb ----------------------------------------------------------------------------- */

/* Whether pattern is a plain literal (no character PCRE2 treats specially). */
static bool is_plain(const char *p)
{
	return p[strcspn(p, "\\^$.|?*+()[]{}")] == '\0';
}

/* Whether the pattern may look at the edges of its subject (\A, \z, \Z, \G, lookaround, \K,
 * verbs): then the buffer and a line alone are different subjects, so it runs line by line. */
static bool needs_line_mode(const char *p)
{
	for (; *p; p++) {
		if (p[0] == '\\' && p[1]) {
			if (strchr("AzZGK", p[1]))
				return true;
			p++;
		} else if (p[0] == '(' && (strncmp(p, "(?=", 3) == 0 || strncmp(p, "(?!", 3) == 0 ||
		                           strncmp(p, "(?<=", 4) == 0 || strncmp(p, "(?<!", 4) == 0 ||
		                           strncmp(p, "(*", 2) == 0)) {
			return true;
		}
	}
	return false;
}

static void workers_free(search_t *s)
{
	for (int i = 0; s->workers && i < s->nworkers; i++) {
		sworker_t *wk = &s->workers[i];
		free(wk->buf);
		free(wk->local);
		free(wk->cutoff_path);
		if (!s->code)
			continue; /* nothing of PCRE2's, which may not even be loaded */
		pcre2_match_data_free(wk->md);
		pcre2_match_context_free(wk->mc);
		pcre2_jit_stack_free(wk->js);
	}
	free(s->workers);
}

static int workers_new(search_t *s, int n)
{
	s->workers = calloc((size_t)n, sizeof *s->workers);
	if (!s->workers)
		return -1;
	s->nworkers = n;
	for (int i = 0; i < n; i++) {
		sworker_t *wk = &s->workers[i];
		if (!s->code)
			continue;
		wk->md = pcre2_match_data_create_from_pattern(s->code, NULL);
		wk->mc = pcre2_match_context_create(NULL);
		if (!wk->md || !wk->mc)
			return -1;
		if (s->jit) {
			wk->js = pcre2_jit_stack_create(64 * 1024, JIT_STACK_MAX, NULL);
			if (!wk->js)
				return -1;
			pcre2_jit_stack_assign(wk->mc, NULL, wk->js);
		}
	}
	return 0;
}

static int cmp_matches(const void *a, const void *b)
{
	return key_cmp(a, b);
}

void hermes_verb_fs_search(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_search_args_t *args = args_;
	hermes_fs_search_result_t *result = result_;
	char shown[256];
	const char *path = args->path ? args->path : ".";
	if (args->context_lines < 0 || args->context_lines > SEARCH_MAX_CONTEXT) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot search: contextLines must be 0 to %d (got %d)",
		                   SEARCH_MAX_CONTEXT, (int)args->context_lines);
		return;
	}
	if (args->max_results < 1 || args->max_results > SEARCH_MAX_RESULTS) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot search: maxResults must be 1 to %d (got %d)", SEARCH_MAX_RESULTS,
		                   (int)args->max_results);
		return;
	}
	uint64_t worst = (uint64_t)args->max_results * (uint64_t)(2 * args->context_lines + 1) *
	                 (LINE_SHOWN + 64);
	if (worst > (uint64_t)call->config->max_read_bytes) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot search: %d results with %d context lines could hold %llu bytes, "
		                   "over the read limit of %lld bytes (ask for fewer results or context lines)",
		                   (int)args->max_results, (int)args->context_lines,
		                   (unsigned long long)worst, (long long)call->config->max_read_bytes);
		return;
	}
	if (strchr(args->pattern, '\n')) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot search: the pattern holds a line break, and matches never span "
		                   "lines (search for one line's text)");
		return;
	}

	search_t s;
	memset(&s, 0, sizeof s);
	s.call = call;
	s.context = args->context_lines;
	s.max = (size_t)args->max_results;
	atomic_init(&s.files, 0);
	pthread_mutex_init(&s.mu, NULL);
	hermes_ignore_rules_t *overrides = NULL;
	char *canon = NULL;

	/* The pattern. */
	size_t plen = strlen(args->pattern);
	if (!args->ignore_case && (args->fixed_strings || is_plain(args->pattern))) {
		s.literal = args->pattern;
		s.literal_len = plen;
	} else {
		char why[300];
		if (!hermes_pcre2_lib_load(why, sizeof why)) {
			hermes_result_fail(result, HERMES_E_INTERNAL, "cannot search: %s", why);
			goto out;
		}
		uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
		opts |= args->fixed_strings ? PCRE2_LITERAL : PCRE2_UCP | PCRE2_MULTILINE;
		if (args->ignore_case)
			opts |= PCRE2_CASELESS;
		pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
		if (cc)
			pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
		int errcode;
		PCRE2_SIZE erroff;
		s.code = cc ? pcre2_compile((PCRE2_SPTR)args->pattern, plen, opts, &errcode, &erroff, cc)
		            : NULL;
		pcre2_compile_context_free(cc);
		if (!s.code) {
			if (!cc) {
				hermes_result_fail(result, HERMES_E_INTERNAL, "cannot search: out of memory");
			} else {
				PCRE2_UCHAR msg[256];
				pcre2_get_error_message(errcode, msg, sizeof msg);
				hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
				                   "cannot search: invalid pattern '%s': %s at offset %zu",
				                   hermes_ws_shown(args->pattern, shown, sizeof shown),
				                   (const char *)msg, (size_t)erroff);
			}
			goto out;
		}
		s.jit = pcre2_jit_compile(s.code, PCRE2_JIT_COMPLETE) == 0;
		s.line_mode = !args->fixed_strings && needs_line_mode(args->pattern);
	}

	/* include and exclude, in that order: the last matching glob decides, so exclude wins. */
	if (args->include_count || args->exclude_count) {
		overrides = hermes_ignore_new();
		if (!overrides) {
			hermes_result_fail(result, HERMES_E_INTERNAL, "cannot search: out of memory");
			goto out;
		}
		for (int pass = 0; pass < 2; pass++) {
			char **list = pass ? args->exclude : args->include;
			size_t n = pass ? args->exclude_count : args->include_count;
			const char *field = pass ? "exclude" : "include";
			for (size_t i = 0; i < n; i++) {
				char why[200];
				int rc = list[i][0] == '!' ? -1 : hermes_ignore_add_override(overrides, list[i], !pass, why,
				                                                                sizeof why);
				if (list[i][0] == '!')
					snprintf(why, sizeof why, "a glob may not start with '!' (put it in %s)",
					         pass ? "include" : "exclude");
				if (rc == -2) {
					hermes_result_fail(result, HERMES_E_INTERNAL, "cannot search: out of memory");
					goto out;
				}
				if (rc) {
					hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
					                   "cannot search: invalid glob '%s' in %s: %s",
					                   hermes_ws_shown(list[i], shown, sizeof shown), field, why);
					goto out;
				}
			}
		}
	}

	/* Where. */
	mode_t mode;
	int rc = hermes_walk_resolve(call->host, path, &canon, &mode);
	if (rc) {
		hermes_ws_fail(result, rc, "search", path);
		goto out;
	}
	if (!S_ISDIR(mode) && !S_ISREG(mode)) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot search '%s': it is not a regular file or a directory",
		                   hermes_ws_shown(path, shown, sizeof shown));
		goto out;
	}
	int nworkers = S_ISDIR(mode) ? hermes_walk_threads(0) : 1;
	s.heap = calloc(s.max, sizeof *s.heap);
	if (!s.heap || workers_new(&s, nworkers) < 0) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot search: out of memory");
		goto out;
	}
	if (S_ISDIR(mode)) {
		hermes_walk_opts_t o = {
			.ws = call->host,
			.root = canon,
			.filter = {.respect_ignore = args->respect_ignore,
			           .include_hidden = args->include_hidden,
			           .overrides = overrides},
			.threads = nworkers,
			.cancel = call->cancel,
			.on_file = on_file,
			.ctx = &s,
		};
		rc = hermes_walk_run(&o);
	} else {
		/* One file named by the request: searched whatever the filters say. */
		int fd;
		rc = hermes_ws_open_path(call->host, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, &fd);
		if (rc == 0) {
			struct stat st;
			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
				rc = scan(&s, &s.workers[0], fd, st.st_size, canon);
			close(fd);
		}
	}
	if (s.err_code != HERMES_E_NONE) {
		hermes_result_fail(result, s.err_code, "%s", s.err_msg);
		goto out;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "search", path);
		goto out;
	}
	if (s.nheap > 1)
		qsort(s.heap, s.nheap, sizeof *s.heap, cmp_matches);
	result->matches = s.heap;
	result->matches_count = s.nheap;
	s.heap = NULL;
	s.nheap = 0;
	result->truncated = s.truncated;
	result->files_searched = (int64_t)atomic_load(&s.files);
out:
	for (size_t i = 0; s.heap && i < s.nheap; i++)
		match_clear(&s.heap[i]);
	free(s.heap);
	workers_free(&s);
	if (s.code)
		pcre2_code_free(s.code);
	hermes_ignore_free(overrides);
	free(canon);
	pthread_mutex_destroy(&s.mu);
}
