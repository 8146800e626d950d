/* fs/watches.c: the table of watches by handle (see watches.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/watches.h"

struct hermes_watch_ref {
	char id[HERMES_WATCH_ID_MAX];
	hermes_watch_t *watch;
	int refs;                 /* the table's own, while listed, and each finder's */
	hermes_watch_ref_t *next; /* listed ones */
};

struct hermes_watches {
	pthread_mutex_t lock;
	int limit, count;
	hermes_handles_t ids;
	hermes_watch_ref_t *list;
};

hermes_watches_t *hermes_watches_new(int limit, const char *instance)
{
	hermes_watches_t *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->limit = limit;
	hermes_handles_init(&t->ids, instance);
	return t;
}

static void unref(hermes_watch_ref_t *r)
{
	if (--r->refs == 0) {
		hermes_watch_free(r->watch);
		free(r);
	}
}

void hermes_watches_free(void *table)
{
	hermes_watches_t *t = table;
	if (!t)
		return;
	for (hermes_watch_ref_t *r = t->list, *next; r; r = next) {
		next = r->next;
		unref(r);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int hermes_watches_add(hermes_watches_t *t, hermes_watch_t *w, char id[HERMES_WATCH_ID_MAX])
{
	hermes_watch_ref_t *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	pthread_mutex_lock(&t->lock);
	if (t->count >= t->limit) {
		pthread_mutex_unlock(&t->lock);
		free(r);
		return -EAGAIN;
	}
	hermes_handles_mint(&t->ids, 'w', r->id, sizeof r->id);
	r->watch = w;
	r->refs = 1;
	r->next = t->list;
	t->list = r;
	t->count++;
	memcpy(id, r->id, sizeof r->id);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

const char *hermes_watches_instance(const hermes_watches_t *t)
{
	return t->ids.instance;
}

hermes_watch_ref_t *hermes_watches_find(hermes_watches_t *t, const char *id)
{
	pthread_mutex_lock(&t->lock);
	hermes_watch_ref_t *r = t->list;
	while (r && strcmp(r->id, id) != 0)
		r = r->next;
	if (r)
		r->refs++;
	pthread_mutex_unlock(&t->lock);
	return r;
}

hermes_watch_t *hermes_watch_ref_get(hermes_watch_ref_t *r)
{
	return r->watch;
}

void hermes_watches_release(hermes_watches_t *t, hermes_watch_ref_t *r)
{
	pthread_mutex_lock(&t->lock);
	unref(r);
	pthread_mutex_unlock(&t->lock);
}

int hermes_watches_remove(hermes_watches_t *t, const char *id)
{
	pthread_mutex_lock(&t->lock);
	hermes_watch_ref_t **pp = &t->list;
	while (*pp && strcmp((*pp)->id, id) != 0)
		pp = &(*pp)->next;
	hermes_watch_ref_t *r = *pp;
	if (r) {
		*pp = r->next;
		t->count--;
		hermes_watch_close(r->watch);
		unref(r);
	}
	pthread_mutex_unlock(&t->lock);
	return r ? 0 : -ENOENT;
}
