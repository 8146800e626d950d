/* fs/chunks.c: see chunks.h. */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/buf.h"
#include "fs/chunks.h"
#include "fs/mapguard.h"

/* Four lanes of Fletcher's sums over 64-bit words (a += word, b += a), mixed at the end. A chunk
 * that differs in one word always sums differently (its lane's a does); two words swapped, or any
 * bytes moved, change b. Adds only, two lanes to an SSE2 instruction (the same sums in words
 * elsewhere): a multiplication per word cost as much as the chunk's read. */
/* The sum of n bytes at p, copied to `to` on the way if to is not NULL (one pass through them
 * where a copy and then a sum took two). */
static uint64_t sum_copy(const char *p, size_t n, char *to)
{
	uint64_t lanes[8] = { 0 }, h = n; /* a0, a1, a2, a3, b0, b1, b2, b3 */
	size_t i = 0;
#ifdef __SSE2__
	__m128i a01 = _mm_setzero_si128(), a23 = a01, b01 = a01, b23 = a01;
	for (; i + 32 <= n; i += 32) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));
		if (to) {
			_mm_storeu_si128((__m128i *)(void *)(to + i), v0);
			_mm_storeu_si128((__m128i *)(void *)(to + i + 16), v1);
		}
		a01 = _mm_add_epi64(a01, v0);
		a23 = _mm_add_epi64(a23, v1);
		b01 = _mm_add_epi64(b01, a01);
		b23 = _mm_add_epi64(b23, a23);
	}
	_mm_storeu_si128((__m128i *)(void *)lanes, a01);
	_mm_storeu_si128((__m128i *)(void *)(lanes + 2), a23);
	_mm_storeu_si128((__m128i *)(void *)(lanes + 4), b01);
	_mm_storeu_si128((__m128i *)(void *)(lanes + 6), b23);
#else
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
	for (; i + 32 <= n; i += 32) { /* in locals: as arrays, GCC kept the lanes in memory */
		uint64_t w0, w1, w2, w3;
		memcpy(&w0, p + i, 8);
		memcpy(&w1, p + i + 8, 8);
		memcpy(&w2, p + i + 16, 8);
		memcpy(&w3, p + i + 24, 8);
		if (to)
			memcpy(to + i, p + i, 32);
		b0 += a0 += w0;
		b1 += a1 += w1;
		b2 += a2 += w2;
		b3 += a3 += w3;
	}
	const uint64_t sums[8] = { a0, a1, a2, a3, b0, b1, b2, b3 };
	memcpy(lanes, sums, sizeof lanes);
#endif
	const uint64_t k = UINT64_C(0x9E3779B97F4A7C15);
	for (; i < n; i++) {
		if (to)
			to[i] = p[i];
		h = (h ^ (unsigned char)p[i]) * k;
	}
	for (int j = 0; j < 8; j++)
		h = (h ^ lanes[j]) * k;
	return h;
}

uint64_t hermes_chunk_sum(const char *p, size_t n)
{
	return sum_copy(p, n, NULL);
}

void hermes_chunk_bounds(const char *map, size_t size, size_t chunk, size_t *bounds, size_t n)
{
	bounds[0] = 0;
	for (size_t k = 1; k < n; k++) {
		size_t b = k * chunk, stop = b + 3;
		while (b < stop && b < size && ((unsigned char)map[b] & 0xC0) == 0x80)
			b++;
		bounds[k] = b;
	}
	bounds[n] = size;
}

/* ---- the second pass on two threads ---------------------------------------------------------- */

enum { EMPTY, READY, CHANGED, NO_MEMORY };

/* A chunk the second thread made, waiting for the caller (or EMPTY: the thread may fill it). */
typedef struct slot {
	hermes_buf_t out;
	int state;
} slot_t;

struct hermes_escaped_chunks {
	const char *map;
	size_t map_len;
	const size_t *bounds;
	const uint64_t *sums;
	size_t n;
	size_t next;         /* the caller's next chunk; n once it ended */
	char *copy;          /* the caller's copy of a chunk, and its escape */
	hermes_buf_t mine;
	bool helper;         /* the second thread runs: it makes the chunks helpers() names */
	pthread_t tid;
	char *helper_copy;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	slot_t slot[2];      /* its chunk k goes to slot[helper_index(k) % 2]: one handed out while
	                        the next is made */
	int held;            /* the slot handed out last, freed at the next call; -1: none */
	bool stop;
};

typedef struct copy {
	char *to;
	const char *from;
	size_t len;
	uint64_t sum;
} copy_t;

static void copy_piece(void *arg)
{
	copy_t *c = arg;
	c->sum = sum_copy(c->from, c->len, c->to);
}

/* Chunk k into out, through copy: copied out of the mapping under the guard (the escaper then
 * reads the copy, unguarded) and summed in the same pass, compared with the first pass's sum,
 * escaped. */
static int make(hermes_escaped_chunks_t *c, size_t k, char *copy, hermes_buf_t *out)
{
	size_t from = c->bounds[k], len = c->bounds[k + 1] - from;
	copy_t job = { copy, c->map + from, len, 0 };
	if (!hermes_map_guard_run(c->map, c->map_len, copy_piece, &job))
		return CHANGED; /* cut short since the first pass */
	if (job.sum != c->sums[k]) /* summed as copied: the sum is the copy's */
		return CHANGED;
	out->len = 0;
	hermes_buf_json_chars(out, copy, len);
	return out->failed ? NO_MEMORY : READY;
}

/* The chunks the second thread makes: two of every three. The caller also writes them all out,
 * which costs it about what making one costs the thread. */
static bool helpers(size_t k)
{
	return k % 3 != 0;
}

/* How many of the chunks before k the second thread makes: its slot is that count's parity. */
static size_t helper_index(size_t k)
{
	return k - (k + 2) / 3;
}

static void *helper_main(void *arg)
{
	hermes_escaped_chunks_t *c = arg;
	for (size_t k = 1; k < c->n; k++) {
		if (!helpers(k))
			continue;
		slot_t *s = &c->slot[helper_index(k) % 2];
		pthread_mutex_lock(&c->lock);
		while (s->state != EMPTY && !c->stop)
			pthread_cond_wait(&c->cond, &c->lock);
		bool stop = c->stop;
		pthread_mutex_unlock(&c->lock);
		if (stop)
			break;
		int state = make(c, k, c->helper_copy, &s->out); /* EMPTY: the slot is this thread's */
		pthread_mutex_lock(&c->lock);
		s->state = state;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		if (state != READY)
			break;
	}
	return NULL;
}

hermes_escaped_chunks_t *hermes_escaped_chunks_start(const char *map, size_t map_len,
                                                     const size_t *bounds, const uint64_t *sums,
                                                     size_t n)
{
	hermes_escaped_chunks_t *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	size_t most = 0;
	for (size_t k = 0; k < n; k++)
		if (bounds[k + 1] - bounds[k] > most)
			most = bounds[k + 1] - bounds[k];
	*c = (hermes_escaped_chunks_t){ .map = map, .map_len = map_len, .bounds = bounds,
	                                .sums = sums, .n = n, .held = -1 };
	if (!(c->copy = malloc(most + 1))) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	/* no second thread (one chunk, or none to be had): the caller makes every chunk */
	if (n > 1 && (c->helper_copy = malloc(most + 1)) &&
	    pthread_create(&c->tid, NULL, helper_main, c) == 0)
		c->helper = true;
	return c;
}

int hermes_escaped_chunks_next(hermes_escaped_chunks_t *c, const char **data, size_t *len,
                               size_t *at)
{
	if (c->held >= 0) {
		pthread_mutex_lock(&c->lock);
		c->slot[c->held].state = EMPTY;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		c->held = -1;
	}
	if (c->next >= c->n)
		return 0;
	size_t k = c->next++;
	int state;
	if (c->helper && helpers(k)) {
		int i = (int)(helper_index(k) % 2);
		pthread_mutex_lock(&c->lock);
		while (c->slot[i].state == EMPTY)
			pthread_cond_wait(&c->cond, &c->lock);
		state = c->slot[i].state;
		pthread_mutex_unlock(&c->lock);
		if (state == READY) {
			*data = c->slot[i].out.data;
			*len = c->slot[i].out.len;
			c->held = i;
			return 1;
		}
	} else if ((state = make(c, k, c->copy, &c->mine)) == READY) {
		*data = c->mine.data;
		*len = c->mine.len;
		return 1;
	}
	*at = c->bounds[k];
	c->next = c->n;
	return state == CHANGED ? -1 : -2;
}

void hermes_escaped_chunks_free(hermes_escaped_chunks_t *c)
{
	if (!c)
		return;
	if (c->helper) {
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->tid, NULL);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	hermes_buf_free(&c->mine);
	hermes_buf_free(&c->slot[0].out);
	hermes_buf_free(&c->slot[1].out);
	free(c->copy);
	free(c->helper_copy);
	free(c);
}
