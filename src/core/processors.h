/* core/processors.h: how many processors this process may run on (its affinity mask, which a
 * container's cpuset or `taskset` narrows), the one count the session, the tree walker and
 * sys.machineInfo use. */
#ifndef HERMES_CORE_PROCESSORS_H
#define HERMES_CORE_PROCESSORS_H

/* The processors of the affinity mask (masks of up to 65,536 are read); the online count if the
 * mask cannot be read; at least 1. */
int hermes_processor_count(void);

#endif
