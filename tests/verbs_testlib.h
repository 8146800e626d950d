/* tests/verbs_testlib.h: what the verbs Check suites share: a fresh workspace in a mkdtemp
 * directory (removed afterwards), an executor on it, and calls made through hermes_execute()
 * with real JSON envelopes whose results are parsed back with cJSON. */
#ifndef HERMES_TESTS_VERBS_TESTLIB_H
#define HERMES_TESTS_VERBS_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>

#include <check.h>
#include <cjson/cJSON.h>
#include <hermes/hermes.h>

/* A test's workspace: base is the mkdtemp directory; the root is base/ws. Siblings of the root
 * (base/outside, base/ws-evil) are where escapes would land. */
typedef struct vt {
	char base[4096];
	char root[4096];
	hermes_executor_t *ex;
	hermes_config_t config;
	cJSON *last;        /* the last result, freed by the next call or vt_teardown */
	int fds;            /* descriptors open after setup: the same number must be at teardown */
} vt_t;

extern vt_t vt;

/* Check fixtures: vt_setup makes base, base/ws and an executor with the default config. */
void vt_setup(void);
void vt_teardown(void);
/* Replaces the executor by one with this config (root is filled in). */
void vt_reopen(const hermes_config_t *config);

/* Executes an envelope (printf format) and returns the parsed result (owned by vt). */
cJSON *vt_exec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Executes an envelope with a cancel token that is already cancelled. */
cJSON *vt_exec_cancelled(const char *envelope);
/* Executes a verb with arguments given as a cJSON object (consumed). */
cJSON *vt_call(const char *verb, cJSON *args);
/* Argument objects from pairs: vt_args("path", "a.txt", NULL) (all strings). */
cJSON *vt_args(const char *key, ...);

/* Assertions on a result. vt_ok: succeeded. vt_err: failed with that errorCode and a message
 * that is not empty (and contains mention, if not NULL). */
#define vt_ok(r) vt_ok_at((r), __FILE__, __LINE__)
#define vt_err(r, code, mention) vt_err_at((r), (code), (mention), __FILE__, __LINE__)
void vt_ok_at(const cJSON *r, const char *file, int line);
void vt_err_at(const cJSON *r, const char *code, const char *mention, const char *file, int line);
const char *vt_str(const cJSON *r, const char *key);
long long vt_int(const cJSON *r, const char *key);
bool vt_bool(const cJSON *r, const char *key);

/* Host-side helpers, relative to the root (or absolute). */
char *vt_path(const char *rel);                /* base-relative "ws/a" -> absolute; static ring */
void vt_put(const char *rel, const char *content);
void vt_put_bytes(const char *rel, const char *data, size_t len);
char *vt_get(const char *rel, size_t *len);     /* malloc'd; NULL if missing */
bool vt_exists(const char *rel);                /* lstat */
void vt_mkdir(const char *rel);
void vt_symlink(const char *target, const char *rel);
/* A description of a whole tree (names, types, modes, sizes, link targets, contents), to show
 * that nothing changed. base-relative dir. Caller frees. */
char *vt_snapshot(const char *dir);

/* Executes a JSON envelope in a child process that has given up root's privileges (it runs as
 * nobody if the tests run as root), so that file permissions apply; returns the errorCode it got
 * ("" on success), malloc'd. The workspace must be readable by others. */
char *vt_exec_unprivileged(const char *envelope);

/* Removes a tree (no symlink followed). */
void vt_rmtree(const char *abs);

/* Runs a Check suite: the main() of every check_verbs_* program. */
int vt_run(Suite *s);

#endif
