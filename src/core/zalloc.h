/* core/zalloc.h: hermes_zalloc, a zeroed block for the hot paths of a server call (its request
 * record, its argument and result structs, a JSON document). */
#ifndef HERMES_CORE_ZALLOC_H
#define HERMES_CORE_ZALLOC_H

#include <stdlib.h>
#include <string.h>

/* Like calloc(1, n) (NULL if memory lacks; the caller frees it), but served from malloc's
 * per-thread cache: glibc's calloc skips that cache and takes the slow path every time (164
 * instructions a call against 41). GCC turns a malloc followed by a memset of zeros back into
 * calloc: the empty asm hides where the block came from. */
static inline void *hermes_zalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p) {
		__asm__ volatile("" : "+r"(p));
		memset(p, 0, n);
	}
	return p;
}

#endif
