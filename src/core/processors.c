/* core/processors.c: see processors.h. */
#include <config.h>

#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "core/processors.h"

int hermes_processor_count(void)
{
	/* a fixed cpu_set_t holds 1,024: sched_getaffinity fails with EINVAL on a larger machine */
	for (int n = 1024; n <= 65536; n *= 2) {
		cpu_set_t *set = CPU_ALLOC((size_t)n);
		if (!set)
			break;
		size_t sz = CPU_ALLOC_SIZE((size_t)n);
		if (sched_getaffinity(0, sz, set) == 0) {
			int c = CPU_COUNT_S(sz, set);
			CPU_FREE(set);
			return c > 0 ? c : 1;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			break;
	}
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c > 0 ? (int)c : 1;
}
