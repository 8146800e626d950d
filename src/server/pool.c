/* server/pool.c: an elastic pthread worker pool (see pool.h). */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "server/log.h"
#include "server/pool.h"

typedef struct worker {
	pthread_t tid;
	struct worker *next;
	hermes_pool_t *pool;
} worker_t;

struct hermes_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;     /* a job was queued, or stopping */
	pthread_cond_t gone;     /* a worker exited */
	hermes_pool_job_t *head, *tail;
	size_t queued;
	size_t threads, idle, blocking;
	size_t jobs, max_threads;
	bool stopping;
	worker_t *exited;        /* finished workers, to be joined */
};

static void *worker_main(void *arg);

static void join_exited(hermes_pool_t *pool)
{
	/* Called with the lock held; the threads on the list have released it for good. */
	while (pool->exited) {
		worker_t *w = pool->exited;
		pool->exited = w->next;
		pthread_join(w->tid, NULL);
		free(w);
	}
}

/* Starts a worker if work is waiting with nobody to take it and the limits allow. Lock held. */
static void maybe_spawn(hermes_pool_t *pool)
{
	join_exited(pool);
	if (pool->queued <= pool->idle)
		return;
	if (pool->threads - pool->blocking >= pool->jobs || pool->threads >= pool->max_threads)
		return;
	worker_t *w = malloc(sizeof *w);
	if (w == NULL)
		return;
	w->pool = pool;
	w->next = NULL;
	int rc = pthread_create(&w->tid, NULL, worker_main, w);
	if (rc != 0) {
		hermes_log(HERMES_LOG_WARN, "cannot start a worker thread (error %d)", rc);
		free(w);
		return;
	}
	pool->threads++;
}

static void *worker_main(void *arg)
{
	worker_t *self = arg;
	hermes_pool_t *pool = self->pool;
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (pool->head == NULL && !pool->stopping) {
			pool->idle++;
			pthread_cond_wait(&pool->work, &pool->lock);
			pool->idle--;
		}
		hermes_pool_job_t *job = pool->head;
		if (job == NULL)
			break; /* stopping and nothing left */
		pool->head = job->next;
		if (pool->head)
			pool->head->prev = NULL;
		else
			pool->tail = NULL;
		pool->queued--;
		job->next = job->prev = NULL;
		bool blocking = job->blocking;
		if (blocking) {
			pool->blocking++;
			maybe_spawn(pool); /* this thread is gone for a while: keep `jobs` running */
		}
		pthread_mutex_unlock(&pool->lock);
		job->run(job); /* may free job */
		pthread_mutex_lock(&pool->lock);
		if (blocking)
			pool->blocking--;
		if (pool->threads - pool->blocking > pool->jobs)
			break; /* a surplus worker started during a blocking job */
	}
	pool->threads--;
	self->next = pool->exited;
	pool->exited = self;
	pthread_cond_broadcast(&pool->gone);
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

hermes_pool_t *hermes_pool_new(int jobs, int max_threads)
{
	hermes_pool_t *pool = calloc(1, sizeof *pool);
	if (pool == NULL)
		return NULL;
	pool->jobs = jobs > 0 ? (size_t)jobs : 1;
	pool->max_threads = max_threads > jobs ? (size_t)max_threads : pool->jobs;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->gone, NULL);
	return pool;
}

int hermes_pool_submit(hermes_pool_t *pool, hermes_pool_job_t *job)
{
	pthread_mutex_lock(&pool->lock);
	job->next = NULL;
	job->prev = pool->tail;
	if (pool->tail)
		pool->tail->next = job;
	else
		pool->head = job;
	pool->tail = job;
	pool->queued++;
	maybe_spawn(pool);
	if (pool->threads == 0) {
		/* not even one worker: take the job back */
		pool->head = pool->tail = NULL;
		pool->queued = 0;
		pthread_mutex_unlock(&pool->lock);
		return -1;
	}
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

bool hermes_pool_remove(hermes_pool_t *pool, hermes_pool_job_t *job)
{
	bool removed = false;
	pthread_mutex_lock(&pool->lock);
	/* A queued job is either the head or has a predecessor; a running one has neither. */
	if (pool->head == job || job->prev != NULL) {
		if (job->prev)
			job->prev->next = job->next;
		else
			pool->head = job->next;
		if (job->next)
			job->next->prev = job->prev;
		else
			pool->tail = job->prev;
		job->next = job->prev = NULL;
		pool->queued--;
		removed = true;
	}
	pthread_mutex_unlock(&pool->lock);
	return removed;
}

size_t hermes_pool_threads(hermes_pool_t *pool)
{
	pthread_mutex_lock(&pool->lock);
	size_t n = pool->threads;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

void hermes_pool_free(hermes_pool_t *pool)
{
	if (pool == NULL)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_cond_broadcast(&pool->work);
	while (pool->threads > 0)
		pthread_cond_wait(&pool->gone, &pool->lock);
	join_exited(pool);
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->gone);
	free(pool);
}
