/* proc/started.h: the table of programs that keep running (proc.start and its fellows). What it
 * guarantees:
 *  - Each program runs under its own supervisor (spawn.h), started from a thread of the table that
 *    lives as long as the program, so nothing of it outlives the table or the process: stopped
 *    (hermes_started_stop), at its time limit, at hermes_started_free, or when Hermes dies, even by
 *    SIGKILL (the supervisor's death signal).
 *  - At most `limit` programs run at once; ended ones are kept (with their output) until collected
 *    by hermes_started_stop, at most `limit` of them (past that the oldest is collected).
 *  - Output is one stream of bytes, numbered from 0 in arrival order, each byte marked stdout or
 *    stderr; the last HERMES_STARTED_KEEP bytes of it are kept in memory, nothing on disk, and
 *    what falls off the front is counted. Output is read all the time, so a chatty program never
 *    blocks on a full pipe.
 *  - Writing to a program never raises SIGPIPE, and never blocks past HERMES_STARTED_WRITE_MS.
 *  - Thread-safe: one lock for the table; handles are counted references, so a program being
 *    read while another thread collects it stays valid until released.
 * Ids are "p<N>-<6 hex digits>" (the digits drawn once per table). */
#ifndef HERMES_PROC_STARTED_H
#define HERMES_PROC_STARTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <hermes/hermes.h>

#include "core/instance.h"
#include "proc/spawn.h"

#define HERMES_STARTED_KEEP (1 << 20)      /* bytes of output kept per program */
#define HERMES_STARTED_WRITE_MS 10000      /* longest a write waits for the program to read */

typedef struct hermes_started hermes_started_t;
typedef struct hermes_started_prog hermes_started_prog_t;

/* A new, empty table; limit: programs running at once. NULL if out of memory. */
hermes_started_t *hermes_started_new(int limit, const char *instance);
/* Stops every program (SIGTERM to each group, SIGKILL after HERMES_RUN_URGENT_GRACE_MS), waits
 * for them and frees the table. NULL is fine; void * to be an executor's state_free. */
void hermes_started_free(void *table);

/* How to start one: spec as for hermes_run_start (its descriptors are the caller's, and may be
 * closed once this returns), except in_fd/out_fd/err_fd, made here. */
typedef struct hermes_started_opts {
	const char *command_line;  /* for hermes_started_list */
	bool tty;
	int columns, rows;         /* the terminal's size, with tty */
	int timeout_seconds;       /* stopped after it; 0: never */
} hermes_started_opts_t;

/* Starts a program. On success 0 and *out is a reference (release with hermes_started_release);
 * -EAGAIN: `limit` programs run already; else -errno (nothing runs then). */
int hermes_started_start(hermes_started_t *t, const hermes_spawn_t *spec,
                         const hermes_started_opts_t *opts, hermes_started_prog_t **out);

/* The instance name the table's ids begin with ("<instance>.p<N>-<hex>"). */
const char *hermes_started_instance(const hermes_started_t *t);

/* A reference to the program of id, or NULL (unknown, or collected). */
hermes_started_prog_t *hermes_started_find(hermes_started_t *t, const char *id);
void hermes_started_release(hermes_started_prog_t *p);

/* What a program is: id, pid, state. */
typedef struct hermes_started_info {
	char id[HERMES_HANDLE_MAX];
	pid_t pid;
	bool running;
	int exit_code;         /* once ended: exit status, 128+N for signal N, 127 if not executed */
	int start_error;       /* once ended: 0, or -errno / -HERMES_RUN_ESANDBOX from the exec */
	int64_t output_bytes;  /* the offset after the last byte of output */
	time_t started;
	bool tty;
	char command_line[1001];
} hermes_started_info_t;
void hermes_started_info(hermes_started_prog_t *p, hermes_started_info_t *info);

/* A range of the output. */
typedef struct hermes_started_slice {
	char *text[2];    /* stdout and stderr bytes of the range (valid UTF-8 text; malloc'd) */
	int64_t next;     /* the offset after the range */
	int64_t dropped;  /* bytes from since to the range's start that are no longer kept */
	bool more;        /* output is kept past next */
} hermes_started_slice_t;

/* Reads the output from since (-1: where the previous read of the program stopped), at most max
 * bytes (cut at a character boundary); tail: the last max bytes instead (the rest counts as
 * dropped). Moves the program's read position to the slice's next. 0; -ERANGE if since is past
 * the end; -ENOMEM. */
int hermes_started_read(hermes_started_prog_t *p, int64_t since, size_t max, bool tail,
                        hermes_started_slice_t *out);
void hermes_started_slice_free(hermes_started_slice_t *s);

/* Waits until there is output past offset, the program has ended, deadline_ms (CLOCK_MONOTONIC)
 * passes, or cancel (may be NULL) is cancelled; offset -1: where the last read stopped. True if
 * output or the end came. */
bool hermes_started_wait(hermes_started_prog_t *p, int64_t offset, int64_t deadline_ms,
                         const hermes_cancel_t *cancel);

/* Copies the output in [from, end) into buf (at most size bytes, the earliest kept from `from`
 * on): for a caller that scans it (waitFor). Returns the bytes copied; *at gets their offset
 * (greater than from if some were dropped). */
size_t hermes_started_peek(hermes_started_prog_t *p, int64_t from, char *buf, size_t size,
                           int64_t *at);

/* Writes text to the program's standard input, then closes it if close_stdin (with tty: sends
 * Ctrl-D). 0; -EBADF if an earlier call closed it; -EPIPE if the program no longer reads it;
 * -ETIMEDOUT if it read nothing for HERMES_STARTED_WRITE_MS (*written says how much went);
 * -EMSGSIZE (nothing written) if, with a terminal in canonical mode, a line (with what earlier
 * writes left unended) would pass HERMES_STARTED_TTY_LINE_MAX bytes, which the terminal drops. */
#define HERMES_STARTED_TTY_LINE_MAX 4095
int hermes_started_write(hermes_started_prog_t *p, const char *text, size_t len, bool close_stdin,
                         size_t *written);

/* Sends sig to the program's process group, waits up to grace_ms for it to end, then SIGKILLs
 * it, and waits for the end (its supervisor then ends every descendant). 0 once ended. */
int hermes_started_stop(hermes_started_prog_t *p, int sig, int grace_ms);

/* Removes an ended program from the table (its id becomes unknown). */
void hermes_started_collect(hermes_started_prog_t *p);

/* Every program of the table, oldest first: *out is a malloc'd array of *count (free() it). */
int hermes_started_list(hermes_started_t *t, hermes_started_info_t **out, size_t *count);

/* The monotonic clock in ms. */
int64_t hermes_started_now_ms(void);

#endif
