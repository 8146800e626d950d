/* tests/check_core_text.c: the fast paths of text handling (UTF-8 validation 32 and 8 bytes at a
 * time, JSON escaping that stores 32 bytes a step, a result streamed to a sink in slices, a
 * string taken from a source as it is written) against
 * simple byte-by-byte references, at every alignment and around every word boundary. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hermes/hermes.h>

#include "core/buf.h"
#include "core/desc.h"
#include "core/encode.h"
#include "core/utf8.h"
#include "core/verb.h"
#include "check_run.h"

/* ---- references: one byte at a time, as RFC 3629 and RFC 8259 say it --------------------- */

/* The code point of a sequence at s (n bytes available), or -1 if none is valid there; *len. */
static long ref_decode(const unsigned char *s, size_t n, size_t *len)
{
	unsigned char c = s[0];
	size_t need = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
	            : (c & 0xF8) == 0xF0 ? 4 : 0;
	if (need == 0 || need > n)
		return -1;
	long cp = need == 1 ? c : need == 2 ? (c & 0x1F) : need == 3 ? (c & 0x0F) : (c & 0x07);
	for (size_t k = 1; k < need; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return -1;
		cp = cp << 6 | (s[k] & 0x3F);
	}
	static const long least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < least[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1; /* overlong, past U+10FFFF, surrogate */
	*len = need;
	return cp;
}

static size_t ref_validate(const char *s, size_t n, bool no_nul)
{
	size_t i = 0, len;
	while (i < n) {
		if ((no_nul && s[i] == '\0') || ref_decode((const unsigned char *)s + i, n - i, &len) < 0)
			return i;
		i += len;
	}
	return n;
}

/* The JSON string's contents, malloc'd: escapes for '"', '\\' and controls, U+FFFD per bad byte. */
static char *ref_escape(const char *s, size_t n, size_t *out_len)
{
	char *o = malloc(n * 6 + 1), *p = o;
	size_t i = 0, len;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c < 0x20) {
			const char *short_ = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
			                   : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
			if (short_)
				p += sprintf(p, "%s", short_);
			else
				p += sprintf(p, "\\u%04x", c);
			i++;
		} else if (ref_decode((const unsigned char *)s + i, n - i, &len) < 0) {
			memcpy(p, "\xEF\xBF\xBD", 3);
			p += 3;
			i++;
		} else {
			memcpy(p, s + i, len);
			p += len;
			i += len;
		}
	}
	*p = '\0';
	*out_len = (size_t)(p - o);
	return o;
}

/* ---- the cases ----------------------------------------------------------------------------- */

/* Sequences that a fast path must see whole or refuse: valid ones of each length, the limits, and
 * the invalid kinds (lone continuation, truncated, overlong, surrogate, past U+10FFFF, 0xFF, NUL). */
static const char *const pieces[] = {
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbf",
	"\xe0\xa0\x80", "\xf0\x90\x80\x80", "\xed\x9f\xbf", "\xee\x80\x80",
	"\x80", "\xbf", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf",
	"\xe0\x9f\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
	"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe", "\xff",
	"\"", "\\", "\n", "\x01", "\x1f", "\x7f", " ",
	/* valid sequences followed by stray continuation bytes: a cut in them must not split them */
	"\xc3\xa9\x80\x80\x80", "\xe2\x82\xac\x80\x80\x80", "\xf0\x9f\x98\x80\x80\x80\x80",
};
#define NPIECES (sizeof pieces / sizeof pieces[0])

/* A line of ASCII with one piece at offset at (the same piece is at its end too). */
static size_t make_case(char *buf, size_t total, size_t at, const char *piece)
{
	size_t pl = strlen(piece);
	for (size_t k = 0; k < total; k++)
		buf[k] = (char)('a' + k % 26);
	memcpy(buf + at, piece, pl);
	if (total >= pl)
		memcpy(buf + total - pl, piece, pl);
	return total;
}

/* Every piece at every offset of buffers up to 80 bytes (past two 32-byte steps), starting at every
 * alignment of a 16-byte block: the validators agree with the reference. */
START_TEST(validate_every_boundary)
{
	static char block[160];
	for (size_t p = 0; p < NPIECES; p++) {
		for (size_t align = 0; align < 16; align++) {
			char *buf = block + align;
			for (size_t total = 0; total <= 80; total++) {
				for (size_t at = 0; at + strlen(pieces[p]) <= total; at++) {
					make_case(buf, total, at, pieces[p]);
					ck_assert_uint_eq(hermes_utf8_validate(buf, total),
					                  ref_validate(buf, total, false));
					ck_assert_uint_eq(hermes_text_validate(buf, total),
					                  ref_validate(buf, total, true));
				}
			}
		}
		/* a NUL is text's refusal, not UTF-8's: embedded NULs (strlen would stop at them) */
		char nul[40];
		make_case(nul, sizeof nul, 0, pieces[p]);
		for (size_t at = 0; at < sizeof nul; at++) {
			char saved = nul[at];
			nul[at] = '\0';
			ck_assert_uint_eq(hermes_text_validate(nul, sizeof nul), ref_validate(nul, sizeof nul, true));
			ck_assert_uint_eq(hermes_utf8_validate(nul, sizeof nul), ref_validate(nul, sizeof nul, false));
			nul[at] = saved;
		}
	}
}
END_TEST

static void check_escape(const char *s, size_t n)
{
	size_t want_len;
	char *want = ref_escape(s, n, &want_len);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_json_chars(&b, s, n);
	ck_assert(!b.failed);
	ck_assert_uint_eq(b.len, want_len);
	ck_assert_mem_eq(b.data, want, want_len);
	ck_assert_int_eq(b.data[b.len], '\0');
	/* the quoted form is the same between quotes, appended after what a buffer held */
	hermes_buf_t q = HERMES_BUF_INIT;
	hermes_buf_append(&q, "x", 1);
	hermes_buf_json_string(&q, s, n);
	ck_assert_uint_eq(q.len, want_len + 3);
	ck_assert_int_eq(q.data[1], '"');
	ck_assert_mem_eq(q.data + 2, want, want_len);
	ck_assert_int_eq(q.data[q.len - 1], '"');
	hermes_buf_free(&q);
	hermes_buf_free(&b);
	free(want);
}

/* The escaper against the reference: every piece at every offset and alignment, and runs where
 * every byte needs an escape (the worst case the reserve is sized for). */
START_TEST(escape_every_boundary)
{
	static char block[160];
	for (size_t p = 0; p < NPIECES; p++)
		for (size_t align = 0; align < 16; align += 3)
			for (size_t total = 0; total <= 80; total++)
				for (size_t at = 0; at + strlen(pieces[p]) <= total; at++) {
					make_case(block + align, total, at, pieces[p]);
					check_escape(block + align, total);
				}
	char worst[100];
	for (size_t n = 0; n <= sizeof worst; n++) {
		memset(worst, '\x01', n);
		check_escape(worst, n);
		memset(worst, '\xff', n);
		check_escape(worst, n);
	}
	/* every byte value in a stretch of each kind */
	char all[256 * 3];
	for (size_t k = 0; k < sizeof all; k++)
		all[k] = (char)(k % 3 == 1 ? k / 3 : 'a');
	check_escape(all, sizeof all);
}
END_TEST

/* Random text of mixed kinds, long enough to cross many steps: both agree with the references. */
START_TEST(random_text)
{
	unsigned seed = 12345;
	char buf[4096];
	for (int round = 0; round < 400; round++) {
		size_t n = 0;
		while (n + 8 < sizeof buf) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = seed >> 16;
			if (r % 4 == 0) { /* a piece */
				const char *piece = pieces[r % NPIECES];
				if (round % 2 == 0 && r % 8 == 0)
					piece = pieces[r % 9]; /* mostly valid in even rounds */
				memcpy(buf + n, piece, strlen(piece));
				n += strlen(piece);
			} else {
				size_t run = r % 70;
				for (size_t k = 0; k < run && n < sizeof buf - 8; k++)
					buf[n++] = (char)(' ' + (k * 7 + r) % 90);
			}
		}
		ck_assert_uint_eq(hermes_utf8_validate(buf, n), ref_validate(buf, n, false));
		ck_assert_uint_eq(hermes_text_validate(buf, n), ref_validate(buf, n, true));
		check_escape(buf, n);
	}
}
END_TEST

/* Text validated as it arrives, in chunks of every size from 1 to 40 bytes: the same answer as
 * validating the whole, whatever the cuts. */
START_TEST(validate_in_chunks)
{
	static char block[200];
	for (size_t p = 0; p < NPIECES; p++)
		for (size_t at = 0; at < 60; at++) {
			size_t total = make_case(block, 80, at, pieces[p]);
			size_t want = ref_validate(block, total, true);
			for (size_t step = 1; step <= 40; step++) {
				size_t checked = 0, len = 0;
				bool ok = true;
				while (ok && len < total) {
					len = len + step < total ? len + step : total;
					ok = hermes_text_validate_more(block, len, &checked, false);
					ck_assert_uint_le(checked, len);
				}
				if (ok)
					ok = hermes_text_validate_more(block, total, &checked, true);
				ck_assert_int_eq(ok, want == total);
				ck_assert_uint_eq(checked, want);
			}
		}
}
END_TEST

/* Blocks with several stops each (newlines, quotes, controls: the escaper handles a block's
 * stops in one go when it holds only ASCII and 32 more bytes follow), with and without a
 * multibyte sequence among them, at every length up to past four steps and several alignments. */
START_TEST(escape_dense_stops)
{
	static const char alphabet[] = "ab\n\"\\\x01\x1f\t\x7f ";
	static char buf[300];
	unsigned seed = 7;
	for (int round = 0; round < 300; round++) {
		for (size_t n = 0; n <= 200; n += 1 + (size_t)round % 3) {
			char *b = buf + round % 16;
			for (size_t k = 0; k < n; k++) {
				seed = seed * 1103515245u + 12345u;
				unsigned r = seed >> 16;
				/* sparse stops in even rounds, dense in odd ones */
				b[k] = round % 2 == 0 && r % 5 ? (char)('c' + r % 20)
				                               : alphabet[r % (sizeof alphabet - 1)];
			}
			if (round % 4 == 3 && n >= 70)
				memcpy(b + (size_t)round % (n - 4), "\xe2\x82\xac", 3);
			check_escape(b, n);
		}
	}
}
END_TEST

/* hermes_utf8_whole_prefix: a valid text cut after every byte keeps exactly the sequences wholly
 * before the cut, whatever their length. */
START_TEST(utf8_whole_prefix)
{
	static const char *const valid[] = { "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
	                                     "\xf4\x8f\xbf\xbf", "\n" };
	for (size_t v = 0; v < sizeof valid / sizeof valid[0]; v++) {
		for (size_t w = 0; w < sizeof valid / sizeof valid[0]; w++) {
			char text[16];
			size_t lv = strlen(valid[v]), lw = strlen(valid[w]);
			memcpy(text, "xy", 2);
			memcpy(text + 2, valid[v], lv);
			memcpy(text + 2 + lv, valid[w], lw);
			size_t total = 2 + lv + lw;
			for (size_t len = 0; len <= total; len++) {
				/* the sequences' starts: 0, 1, 2, 2 + lv, total */
				size_t want = len >= total ? total : len >= 2 + lv ? 2 + lv : len >= 2 ? 2 : len;
				ck_assert_msg(hermes_utf8_whole_prefix(text, len) == want,
				              "piece %zu then %zu cut at %zu: %zu, not %zu", v, w, len,
				              hermes_utf8_whole_prefix(text, len), want);
			}
		}
	}
	/* only continuation bytes (not text; nothing to keep back) */
	ck_assert_uint_eq(hermes_utf8_whole_prefix("\x80\x80\x80\x80", 4), 4);
	ck_assert_uint_eq(hermes_utf8_whole_prefix("", 0), 0);
}
END_TEST

/* ---- a result streamed to a sink ----------------------------------------------------------- */

typedef struct collected {
	hermes_buf_t text;
	size_t pieces;
	size_t refuse_at; /* refuse this piece (1-based); 0: take them all */
} collected_t;

static bool collect(void *ctx, const char *data, size_t len)
{
	collected_t *c = ctx;
	if (++c->pieces == c->refuse_at)
		return false;
	ck_assert_uint_gt(len, 0);
	hermes_buf_append(&c->text, data, len);
	return true;
}

/* fs.readFile's result holding content, streamed and whole: the same text, byte for byte. */
static void check_streamed(const char *content, unsigned flags)
{
	const hermes_verb_desc_t *verb = hermes_verb_desc_find("fs.readFile");
	ck_assert_ptr_nonnull(verb);
	hermes_fs_read_file_result_t r;
	memset(&r, 0, sizeof r);
	r.common.succeeded = true;
	r.content = (char *)content;
	r.version = (char *)"1-2-3";
	char *whole = hermes_encode_result(verb->result, &r, flags);
	ck_assert_ptr_nonnull(whole);
	collected_t c = { HERMES_BUF_INIT, 0, 0 };
	ck_assert_int_eq(hermes_encode_result_to(verb->result, &r, flags, NULL, collect, &c), 0);
	ck_assert_uint_eq(c.text.len, strlen(whole));
	ck_assert_mem_eq(c.text.data, whole, c.text.len);
	hermes_buf_free(&c.text);
	free(whole);
}

/* Content past a slice (64 KiB) in many slices, with a multibyte sequence, an invalid one and an
 * escape straddling every cut a slicer could make near each slice boundary. */
START_TEST(stream_matches_whole)
{
	const size_t slice = (size_t)64 << 10, n = slice * 5 + 777;
	char *s = malloc(n + 1);
	for (size_t p = 0; p < NPIECES; p++) {
		/* the first cut falls at SLICE or a few bytes before; the later ones move with it */
		for (size_t d = 0; d < 8; d++) {
			for (size_t k = 0; k < n; k++)
				s[k] = (char)('a' + k % 23);
			s[n] = '\0';
			memcpy(s + slice - 5 + d, pieces[p], strlen(pieces[p]));
			memcpy(s + 3 * slice - 5 + d, pieces[p], strlen(pieces[p]));
			check_streamed(s, 0);
		}
		check_streamed(s, HERMES_JSON_PRETTY);
	}
	/* three continuation bytes then more across a cut: each its own U+FFFD either way */
	memset(s, '\x80', n);
	check_streamed(s, 0);
	check_streamed("", 0);
	check_streamed("small", 0);
	free(s);
}
END_TEST

/* A sink that refuses a piece gets no more and the encoder says so. */
START_TEST(stream_sink_refuses)
{
	const hermes_verb_desc_t *verb = hermes_verb_desc_find("fs.readFile");
	size_t n = (size_t)2 << 20;
	char *s = malloc(n + 1);
	memset(s, 'x', n);
	s[n] = '\0';
	hermes_fs_read_file_result_t r;
	memset(&r, 0, sizeof r);
	r.common.succeeded = true;
	r.content = s;
	collected_t c = { HERMES_BUF_INIT, 0, 2 };
	ck_assert_int_eq(hermes_encode_result_to(verb->result, &r, 0, NULL, collect, &c), -2);
	ck_assert_uint_eq(c.pieces, 2);
	ck_assert_uint_gt(c.text.len, 0);
	hermes_buf_free(&c.text);
	free(s);
}
END_TEST

/* A source that hands a text out in pieces of the given sizes (cycled), each trimmed to whole
 * sequences; fail_after: after that many pieces it fails the result instead (0: never). */
typedef struct pieces_src {
	const char *text;
	size_t len, at, count, fail_after;
	const size_t *sizes;
	size_t nsizes;
	hermes_fs_read_file_result_t *result;
	bool released;
} pieces_src_t;

static int next_piece(void *ctx, const char **data, size_t *len)
{
	pieces_src_t *p = ctx;
	if (p->fail_after && p->count == p->fail_after) {
		hermes_result_fail(p->result, HERMES_E_CONFLICT, "changed after %zu bytes", p->at);
		p->result->common.keep_fields = true;
		p->result->version = NULL;
		return -1;
	}
	if (p->at == p->len)
		return 0;
	size_t want = p->sizes[p->count++ % p->nsizes];
	size_t n = p->len - p->at < want ? p->len - p->at : want;
	if (p->at + n < p->len) {
		size_t whole = hermes_utf8_whole_prefix(p->text + p->at, n);
		while (whole == 0) /* a piece shorter than the sequence there: the sequence */
			whole = hermes_utf8_whole_prefix(p->text + p->at, ++n);
		n = whole;
	}
	*data = p->text + p->at;
	*len = n;
	p->at += n;
	return 1;
}

/* The same pieces escaped by the source: what hermes_buf_json_chars makes of each. */
typedef struct escaping_src {
	pieces_src_t *raw;
	hermes_buf_t out;
} escaping_src_t;

static int next_escaped(void *ctx, const char **data, size_t *len)
{
	escaping_src_t *e = ctx;
	const char *raw;
	size_t n;
	int r = next_piece(e->raw, &raw, &n);
	if (r <= 0)
		return r;
	e->out.len = 0;
	hermes_buf_json_chars(&e->out, raw, n);
	ck_assert(!e->out.failed);
	*data = e->out.data;
	*len = e->out.len;
	return 1;
}

/* A string from a source, in pieces of any size (a byte; past a slice; not cut where a sequence
 * is), written out like the same string held whole. */
START_TEST(sourced_string_matches_whole)
{
	const hermes_verb_desc_t *verb = hermes_verb_desc_find("fs.readFile");
	const size_t slice = (size_t)64 << 10, n = slice * 3 + 501;
	char *s = malloc(n + 1);
	for (size_t k = 0; k < n; k++)
		s[k] = (char)('a' + k % 23);
	for (size_t k = 1; k + 8 < n; k += 4099) /* multibyte, escapes and a bad byte, everywhere */
		memcpy(s + k, k % 3 ? "\xf0\x9f\x98\x80\n\"\xe2\x82\xac"
		                    : "\xc3\xa9\x01\xff\\\t\xc3\xa9z", 9);
	s[n] = '\0';
	static const size_t sizes1[] = { 1 }, sizes2[] = { (size_t)128 << 10, 7, 3 },
	                    sizes3[] = { 4096, 65536, 65537, 65535, 2 };
	const size_t *sets[] = { sizes1, sizes2, sizes3 };
	const size_t counts[] = { 1, 3, 5 };
	for (size_t set = 0; set < 3; set++) {
		for (unsigned flags = 0; flags <= HERMES_JSON_PRETTY; flags += HERMES_JSON_PRETTY) {
			size_t len = set == 0 ? 3000 : n; /* a byte a piece: a short text will do */
			char saved = s[len];
			s[len] = '\0';
			hermes_fs_read_file_result_t r;
			memset(&r, 0, sizeof r);
			r.common.succeeded = true;
			r.content = s;
			r.version = (char *)"1-2-3";
			char *whole = hermes_encode_result(verb->result, &r, flags);
			pieces_src_t src = { s, len, 0, 0, 0, sets[set], counts[set], &r, false };
			r.content = NULL;
			for (int escaped = 0; escaped < 2; escaped++) {
				src.at = src.count = 0;
				escaping_src_t esc = { &src, HERMES_BUF_INIT };
				hermes_string_stream_t stream = { &r.content, { next_piece, NULL, &src, false } };
				if (escaped) /* pieces that are JSON text already (fs.readFile mapped) */
					stream.source = (hermes_string_source_t){ next_escaped, NULL, &esc, true };
				collected_t c = { HERMES_BUF_INIT, 0, 0 };
				ck_assert_int_eq(hermes_encode_result_to(verb->result, &r, flags, &stream,
				                                         collect, &c), 0);
				ck_assert_uint_eq(c.text.len, strlen(whole));
				ck_assert_mem_eq(c.text.data, whole, c.text.len);
				hermes_buf_free(&c.text);
				hermes_buf_free(&esc.out);
			}
			free(whole);
			s[len] = saved;
		}
	}
	free(s);
}
END_TEST

/* A source that fails part way: the string is closed after what was written, and the result that
 * follows says it failed, with the fields the source cleared as null: valid JSON throughout. */
START_TEST(sourced_string_fails)
{
	const hermes_verb_desc_t *verb = hermes_verb_desc_find("fs.readFile");
	const char *text = "0123456789\n";
	static const size_t sizes[] = { 4 };
	hermes_fs_read_file_result_t r;
	memset(&r, 0, sizeof r);
	r.common.succeeded = true;
	r.version = (char *)"1-2-3";
	pieces_src_t src = { text, strlen(text), 0, 0, 2, sizes, 1, &r, false };
	hermes_string_stream_t stream = { &r.content, { next_piece, NULL, &src, false } };
	collected_t c = { HERMES_BUF_INIT, 0, 0 };
	ck_assert_int_eq(hermes_encode_result_to(verb->result, &r, 0, &stream, collect, &c), 0);
	ck_assert_str_eq(c.text.data, "{\"content\":\"01234567\",\"version\":null,\"succeeded\":false,"
	                              "\"errorMessage\":\"changed after 8 bytes\","
	                              "\"errorCode\":\"Conflict\"}");
	hermes_buf_free(&c.text);
	free(r.common.error_message);
	/* a result that failed before it was written leaves the source unread */
	memset(&r, 0, sizeof r);
	hermes_result_fail(&r, HERMES_E_NOT_TEXT, "no");
	pieces_src_t unread = { text, strlen(text), 0, 0, 0, sizes, 1, &r, false };
	hermes_string_stream_t stream2 = { &r.content, { next_piece, NULL, &unread, false } };
	collected_t c2 = { HERMES_BUF_INIT, 0, 0 };
	ck_assert_int_eq(hermes_encode_result_to(verb->result, &r, 0, &stream2, collect, &c2), 0);
	ck_assert_uint_eq(unread.count, 0);
	ck_assert_str_eq(c2.text.data, "{\"succeeded\":false,\"errorMessage\":\"no\","
	                               "\"errorCode\":\"NotText\"}");
	hermes_buf_free(&c2.text);
	free(r.common.error_message);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core_text");
	TCase *tc = tcase_create("fast_paths");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, validate_every_boundary);
	tcase_add_test(tc, escape_every_boundary);
	tcase_add_test(tc, random_text);
	tcase_add_test(tc, validate_in_chunks);
	tcase_add_test(tc, stream_matches_whole);
	tcase_add_test(tc, stream_sink_refuses);
	tcase_add_test(tc, escape_dense_stops);
	tcase_add_test(tc, utf8_whole_prefix);
	tcase_add_test(tc, sourced_string_matches_whole);
	tcase_add_test(tc, sourced_string_fails);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
