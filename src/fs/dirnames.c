/* fs/dirnames.c: a directory's names read into one arena and sorted by a radix sort on 8-byte
 * keys past their shared prefix; see dirnames.h. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/dirnames.h"

static int by_key(const void *a, const void *b, void *ctx)
{
	const hermes_dirname_t *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	const hermes_dirnames_t *d = ctx;
	size_t past = d->common + 8; /* equal keys: equal up to here, or both ended inside the key */
	if (x->len < past || y->len < past)
		return 0;
	return strcmp(d->arena.data + x->off + past, d->arena.data + y->off + past);
}

/* Sorts d's names: by key with a least-significant-digit radix sort (a pass per byte of the key,
 * skipped where every key has the same byte: the leading bytes, usually), then each run of equal
 * keys by the rest of the names. */
static void sort_names(hermes_dirnames_t *d)
{
	hermes_dirname_t *tmp = d->n >= 64 ? malloc(d->n * sizeof *tmp) : NULL;
	if (!tmp) {
		qsort_r(d->v, d->n, sizeof *d->v, by_key, d);
		return;
	}
	hermes_dirname_t *src = d->v, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t at[256] = {0};
		for (size_t i = 0; i < d->n; i++)
			at[(src[i].key >> shift) & 255]++;
		if (at[(src[0].key >> shift) & 255] == d->n)
			continue;
		for (size_t b = 0, sum = 0; b < 256; b++) {
			size_t c = at[b];
			at[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < d->n; i++)
			dst[at[(src[i].key >> shift) & 255]++] = src[i];
		hermes_dirname_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != d->v)
		memcpy(d->v, src, d->n * sizeof *src);
	free(tmp);
	for (size_t i = 0, j; i < d->n; i = j) {
		for (j = i + 1; j < d->n && d->v[j].key == d->v[i].key; j++)
			;
		if (j - i > 1)
			qsort_r(d->v + i, j - i, sizeof *d->v, by_key, d);
	}
}

int hermes_dirnames_read(DIR *dir, hermes_dirnames_t *d)
{
	/* Sized from the directory's own size, where the file system gives one (ext4: its blocks,
	 * a little more than its entries take): growing by doubling copied 100k names' worth of
	 * arrays several times over, onto pages faulted in for each copy. Room not used is never
	 * touched, so it costs no memory. */
	struct stat st;
	if (fstat(dirfd(dir), &st) == 0 && st.st_size > 4096 && st.st_size < (off_t)1 << 30) {
		size_t guess = (size_t)st.st_size / 16;
		if ((d->v = malloc(guess * sizeof *d->v)) != NULL)
			d->cap = guess;
		hermes_buf_reserve(&d->arena, (size_t)st.st_size);
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(dir);
		if (!de)
			break;
		const char *nm = de->d_name;
		if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
			continue;
		size_t len = strlen(nm);
		if (d->n == d->cap) {
			hermes_dirname_t *p = realloc(d->v, (d->cap = d->cap ? d->cap * 2 : 64) * sizeof *p);
			if (!p)
				return -ENOMEM;
			d->v = p;
		}
		const char *first = d->n ? d->arena.data + d->v[0].off : nm;
		if (d->n == 0)
			d->common = len;
		while (d->common > 0 && (d->common > len || memcmp(first, nm, d->common) != 0))
			d->common--; /* the shared prefix only shrinks: linear over the whole directory */
		d->v[d->n] = (hermes_dirname_t){.off = d->arena.len, .len = (uint32_t)len, .type = de->d_type};
		hermes_buf_append(&d->arena, nm, len + 1);
		if (d->arena.failed)
			return -ENOMEM;
		d->n++;
	}
	if (errno)
		return -errno;
	for (size_t i = 0; i < d->n; i++) {
		const unsigned char *s = (const unsigned char *)d->arena.data + d->v[i].off;
		uint64_t key = 0;
		for (size_t k = 0; k < 8; k++) {
			size_t at = d->common + k;
			key = key << 8 | (at < d->v[i].len ? s[at] : 0);
		}
		d->v[i].key = key;
	}
	if (d->n > 1)
		sort_names(d);
	return 0;
}

void hermes_dirnames_free(hermes_dirnames_t *d)
{
	free(d->v);
	hermes_buf_free(&d->arena);
	d->v = NULL;
	d->n = d->cap = 0;
}
