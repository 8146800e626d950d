/* tests/check_fs_chunks.c: fs/chunks.h, the second pass of a streamed fs.readFile over a mapped
 * file. Chunk bounds never cut a UTF-8 sequence; the chunks, made on two threads, come out in
 * order and escape to exactly what the whole text escapes to; a chunk that no longer matches its
 * sum ends the pass there, whichever thread made it, with what came before intact. */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "fs/chunks.h"
#include "fs/mapguard.h"
#include "check_run.h"

#define CHUNK ((size_t)4096)

/* n bytes of text: ASCII, tabs, quotes and backslashes, and 2-, 3- and 4-byte sequences, placed
 * so that chunk marks fall inside sequences of every length. */
static char *make_text(size_t n)
{
	static const char *const bits[] = { "int x;", "\t", "\"q\"", "\\", "\n", "\xc3\xa9",
	                                    "\xe2\x82\xac", "\xf0\x9f\x98\x80", "abc" };
	char *t = malloc(n + 1);
	ck_assert_ptr_nonnull(t);
	size_t at = 0;
	unsigned seed = 7;
	while (at < n) {
		seed = seed * 1103515245u + 12345u;
		const char *b = bits[(seed >> 16) % (sizeof bits / sizeof bits[0])];
		size_t len = strlen(b);
		if (at + len > n)
			b = "x", len = 1;
		memcpy(t + at, b, len);
		at += len;
	}
	t[n] = '\0';
	return t;
}

typedef struct pass {
	char *text;
	size_t size, n;
	size_t *bounds;
	uint64_t *sums;
} pass_t;

static void first_pass(pass_t *p, size_t size)
{
	p->size = size;
	p->text = make_text(size);
	p->n = hermes_chunk_count(size, CHUNK);
	p->bounds = malloc((p->n + 1) * sizeof *p->bounds);
	p->sums = malloc(p->n * sizeof *p->sums);
	ck_assert(p->bounds && p->sums);
	hermes_chunk_bounds(p->text, size, CHUNK, p->bounds, p->n);
	for (size_t k = 0; k < p->n; k++)
		p->sums[k] = hermes_chunk_sum(p->text + p->bounds[k], p->bounds[k + 1] - p->bounds[k]);
}

static void free_pass(pass_t *p)
{
	free(p->text);
	free(p->bounds);
	free(p->sums);
}

START_TEST(bounds_never_cut_a_sequence)
{
	pass_t p;
	first_pass(&p, 50 * CHUNK + 17);
	ck_assert_uint_eq(p.bounds[0], 0);
	ck_assert_uint_eq(p.bounds[p.n], p.size);
	size_t moved = 0;
	for (size_t k = 1; k < p.n; k++) {
		ck_assert_uint_ge(p.bounds[k], k * CHUNK);
		ck_assert_uint_le(p.bounds[k], k * CHUNK + 3);
		ck_assert_uint_ne((unsigned char)p.text[p.bounds[k]] & 0xC0, 0x80);
		moved += p.bounds[k] != k * CHUNK;
	}
	ck_assert_uint_gt(moved, 0); /* the text did put sequences across marks */
	free_pass(&p);
}
END_TEST

/* The escaped chunks, in order, against the whole text escaped at once; or the first failure. */
static int run(pass_t *p, hermes_buf_t *out, size_t *at)
{
	hermes_escaped_chunks_t *c =
		hermes_escaped_chunks_start(p->text, p->size, p->bounds, p->sums, p->n);
	ck_assert_ptr_nonnull(c);
	const char *data;
	size_t len;
	int r;
	while ((r = hermes_escaped_chunks_next(c, &data, &len, at)) == 1)
		hermes_buf_append(out, data, len);
	hermes_escaped_chunks_free(c);
	return r;
}

START_TEST(chunks_escape_as_the_whole)
{
	static const size_t sizes[] = { 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 5, 64 * CHUNK + 3 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		pass_t p;
		first_pass(&p, sizes[i]);
		hermes_buf_t out = HERMES_BUF_INIT, want = HERMES_BUF_INIT;
		size_t at = 0;
		ck_assert_int_eq(run(&p, &out, &at), 0);
		hermes_buf_json_chars(&want, p.text, p.size);
		ck_assert_uint_eq(out.len, want.len);
		ck_assert_mem_eq(out.data, want.data, want.len);
		hermes_buf_free(&out);
		hermes_buf_free(&want);
		free_pass(&p);
	}
}
END_TEST

/* Chunk k no longer what was checked (its sum differs): the chunks before it come out whole, then
 * -1 at its start, for every k: those the caller makes and those the second thread does. */
START_TEST(a_changed_chunk_ends_the_pass_there)
{
	pass_t p;
	first_pass(&p, 12 * CHUNK + 100);
	for (size_t k = 0; k < p.n; k++) {
		uint64_t saved = p.sums[k];
		p.sums[k] ^= 1;
		hermes_buf_t out = HERMES_BUF_INIT, want = HERMES_BUF_INIT;
		size_t at = 0;
		ck_assert_int_eq(run(&p, &out, &at), -1);
		ck_assert_uint_eq(at, p.bounds[k]);
		hermes_buf_json_chars(&want, p.text, p.bounds[k]);
		ck_assert_uint_eq(out.len, want.len);
		if (want.len > 0) /* nothing came before chunk 0: out holds no buffer at all */
			ck_assert_mem_eq(out.data, want.data, want.len);
		hermes_buf_free(&out);
		hermes_buf_free(&want);
		p.sums[k] = saved;
	}
	free_pass(&p);
}
END_TEST

/* A mapping cut short under the second pass (SIGBUS on the pages past the file's end, caught by
 * the guard): -1 where the first chunk that cannot be read starts, on either thread. */
START_TEST(a_file_cut_short_ends_the_pass)
{
	if (hermes_map_guard_install() != 0)
		return;
	pass_t p;
	first_pass(&p, 40 * CHUNK);
	char path[] = "/tmp/hermes-chunks.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, p.text, p.size), (ssize_t)p.size);
	char *map = mmap(NULL, p.size, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	ck_assert_int_eq(ftruncate(fd, 9 * CHUNK), 0); /* no page behind byte 9 * CHUNK on */
	size_t first = p.bounds[9] > 9 * CHUNK ? 8 : 9; /* chunk 8 may end past it by a sequence */
	hermes_escaped_chunks_t *c = hermes_escaped_chunks_start(map, p.size, p.bounds, p.sums, p.n);
	const char *data;
	size_t len, at = 0, got = 0;
	int r;
	while ((r = hermes_escaped_chunks_next(c, &data, &len, &at)) == 1)
		got++;
	hermes_escaped_chunks_free(c);
	ck_assert_int_eq(r, -1);
	ck_assert_uint_eq(got, first);
	ck_assert_uint_eq(at, p.bounds[first]);
	munmap(map, p.size);
	close(fd);
	free_pass(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fs_chunks");
	TCase *tc = tcase_create("chunks");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bounds_never_cut_a_sequence);
	tcase_add_test(tc, chunks_escape_as_the_whole);
	tcase_add_test(tc, a_changed_chunk_ends_the_pass_there);
	tcase_add_test(tc, a_file_cut_short_ends_the_pass);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
