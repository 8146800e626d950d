/* rpc/pool.c: a pthread worker pool with two lanes (see pool.h). */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "rpc/log.h"
#include "rpc/pool.h"

typedef struct worker {
	pthread_t tid;
	struct worker *next;
	struct hermes_pool *pool;
} worker_t;

typedef struct lane {
	hermes_pool_job_t *head, *tail;
	size_t queued;
	size_t running;
	size_t limit;
} lane_t;

struct hermes_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;     /* a job was queued, or stopping */
	pthread_cond_t gone;     /* a worker exited */
	lane_t lane[2];          /* [0] ordinary, [1] blocking */
	size_t threads, idle;
	bool stopping;
	worker_t *exited;        /* finished workers, to be joined */
};

static void *worker_main(void *arg);

/* Jobs that a worker could start right now. */
static size_t startable(const hermes_pool_t *pool)
{
	size_t n = 0;
	for (int i = 0; i < 2; i++) {
		const lane_t *l = &pool->lane[i];
		size_t room = l->limit - l->running;
		n += l->queued < room ? l->queued : room;
	}
	return n;
}

static void join_exited(hermes_pool_t *pool)
{
	/* Lock held; the threads on the list have released it for good. */
	while (pool->exited) {
		worker_t *w = pool->exited;
		pool->exited = w->next;
		pthread_join(w->tid, NULL);
		free(w);
	}
}

/* Starts workers while startable jobs outnumber idle workers. Lock held. */
static void spawn_as_needed(hermes_pool_t *pool)
{
	join_exited(pool);
	while (startable(pool) > pool->idle) {
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
		pool->idle++; /* counted idle until it takes its first job */
	}
}

/* The next job a worker may start (ordinary first: they are quick), or NULL. Lock held. */
static hermes_pool_job_t *take(hermes_pool_t *pool)
{
	for (int i = 0; i < 2; i++) {
		lane_t *l = &pool->lane[i];
		if (l->head == NULL || l->running >= l->limit)
			continue;
		hermes_pool_job_t *job = l->head;
		l->head = job->next;
		if (l->head)
			l->head->prev = NULL;
		else
			l->tail = NULL;
		l->queued--;
		l->running++;
		job->next = job->prev = NULL;
		return job;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	worker_t *self = arg;
	hermes_pool_t *pool = self->pool;
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		hermes_pool_job_t *job = take(pool);
		if (job == NULL) {
			/* Keep up to `jobs` threads around for the next burst; let the rest go. */
			if (pool->stopping || pool->threads > pool->lane[0].limit)
				break;
			pthread_cond_wait(&pool->work, &pool->lock);
			continue;
		}
		pool->idle--;
		bool blocking = job->blocking;
		pthread_mutex_unlock(&pool->lock);
		job->run(job); /* may free job */
		pthread_mutex_lock(&pool->lock);
		pool->lane[blocking].running--;
		pool->idle++;
		/* room in this lane: this thread takes one job, others may now be startable too */
		spawn_as_needed(pool);
		if (startable(pool) > 1)
			pthread_cond_signal(&pool->work);
	}
	pool->idle--;
	pool->threads--;
	self->next = pool->exited;
	pool->exited = self;
	pthread_cond_broadcast(&pool->gone);
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

hermes_pool_t *hermes_pool_new(int jobs, int max_blocking)
{
	hermes_pool_t *pool = calloc(1, sizeof *pool);
	if (pool == NULL)
		return NULL;
	pool->lane[0].limit = jobs > 0 ? (size_t)jobs : 1;
	pool->lane[1].limit = max_blocking > 0 ? (size_t)max_blocking : 1;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->gone, NULL);
	return pool;
}

int hermes_pool_submit(hermes_pool_t *pool, hermes_pool_job_t *job)
{
	lane_t *l = &pool->lane[job->blocking ? 1 : 0];
	pthread_mutex_lock(&pool->lock);
	job->next = NULL;
	job->prev = l->tail;
	if (l->tail)
		l->tail->next = job;
	else
		l->head = job;
	l->tail = job;
	l->queued++;
	spawn_as_needed(pool);
	if (pool->threads == 0) {
		/* not even one worker: take the job back */
		l->tail = job->prev;
		if (l->tail)
			l->tail->next = NULL;
		else
			l->head = NULL;
		l->queued--;
		job->next = job->prev = NULL;
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
	lane_t *l = &pool->lane[job->blocking ? 1 : 0];
	pthread_mutex_lock(&pool->lock);
	/* A queued job is either the head or has a predecessor; a running one has neither. */
	if (l->head == job || job->prev != NULL) {
		if (job->prev)
			job->prev->next = job->next;
		else
			l->head = job->next;
		if (job->next)
			job->next->prev = job->prev;
		else
			l->tail = job->prev;
		job->next = job->prev = NULL;
		l->queued--;
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
