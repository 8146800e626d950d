/* core/buf.c: the growable byte buffer (JSON string escaping: json_escape.c). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/buf.h"

/* A big buffer (a file's content, its JSON) is filled from start to end once, on fresh pages:
 * faulting them in 4 KiB at a time was a third of a 50 MB fs.readFile (24,600 faults). Asking
 * for transparent huge pages makes that about 50 faults of 2 MiB; the kernel ignores the advice
 * where huge pages are off. */
static void advise_big(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n < ((size_t)8 << 20))
		return;
	uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(page - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

bool hermes_buf_grow(hermes_buf_t *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->cap - b->len > extra)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len <= extra) {
		if (cap > ((size_t)-1) / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	advise_big(p, cap);
	return true;
}

void hermes_buf_printf(hermes_buf_t *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !hermes_buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *hermes_buf_finish(hermes_buf_t *b)
{
	char *out = NULL;
	if (!b->failed && hermes_buf_reserve(b, 0))
		out = b->data;
	else
		free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
	return out;
}

void hermes_buf_free(hermes_buf_t *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
