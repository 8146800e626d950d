/* rpc/pool.h: the worker pool that runs requests. Two lanes: ordinary jobs run on at most `jobs`
 * threads (--jobs); a job marked blocking (one that mostly waits on a child process, like
 * proc.run) runs in its own lane of at most max_blocking threads. So a slow proc.run never holds
 * up quick requests, and a flood of them cannot take every thread either. Threads are started on
 * demand and let go when their lane has nothing left. */
#ifndef HERMES_SERVER_POOL_H
#define HERMES_SERVER_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hermes_pool_job {
	struct hermes_pool_job *next, *prev; /* the pool's queue */
	void (*run)(struct hermes_pool_job *job); /* may free the job */
	bool blocking;
} hermes_pool_job_t;

typedef struct hermes_pool hermes_pool_t;

/* A pool running at most `jobs` ordinary and `max_blocking` blocking jobs at once. NULL if out of
 * memory. */
hermes_pool_t *hermes_pool_new(int jobs, int max_blocking);
/* Queues a job (FIFO within its lane). Returns 0, or -1 if no worker could be started at all
 * (the job is not queued). */
int hermes_pool_submit(hermes_pool_t *pool, hermes_pool_job_t *job);
/* Takes a job off the queue if no worker has picked it up yet: true if it was removed (it will
 * never run), false if it is running or done. */
bool hermes_pool_remove(hermes_pool_t *pool, hermes_pool_job_t *job);
/* Runs everything still queued, then stops and joins every worker and frees the pool. */
void hermes_pool_free(hermes_pool_t *pool);
/* The number of threads (for the logs and tests). */
size_t hermes_pool_threads(hermes_pool_t *pool);

#endif
