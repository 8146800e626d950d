/* proc/started.c: the table of programs that keep running (started.h): a reader thread per
 * program that forks its supervisor, reads its output into a ring and notices its end. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "fs/lines.h"
#include "proc/started.h"

enum state { STARTING, RUNNING, REAPING, ENDED };

struct hermes_started_prog {
	hermes_started_t *t;
	struct hermes_started_prog *next; /* the table's list, oldest first (table lock) */
	bool listed;                      /* in the list: its id is known */
	int refs;                         /* the list's own, and each handle (table lock) */
	char id[HERMES_HANDLE_MAX];
	char command_line[1001];
	bool tty;
	time_t started;
	int timeout_seconds;

	hermes_spawn_t spec;              /* while STARTING: what the reader thread starts */
	pthread_t thread;
	bool has_thread;

	/* table lock */
	enum state state;
	int start_rc;                     /* hermes_run_start's result */
	hermes_run_t run;                 /* while RUNNING: the supervisor may be signalled */
	pid_t pid;
	int exit_code, start_error;
	char *ring;                       /* the last HERMES_STARTED_KEEP bytes of output */
	unsigned char *marks;             /* a bit per byte of ring: 1 for stderr */
	int64_t end;                      /* bytes of output so far */
	int64_t cursor;                   /* where the last read stopped */

	int out_r, err_r;                 /* the reader thread's: our ends of the output */
	int child[3];                     /* the program's ends, closed once it is forked */
	pthread_mutex_t write_lock;       /* guards what follows */
	int in_w;                         /* our end of its input (with tty: the terminal) */
	bool stdin_closed;
	size_t tty_line;                  /* with tty: bytes of the line typed and not ended yet */
};

struct hermes_started {
	pthread_mutex_t lock;
	pthread_cond_t cond;              /* any output, start or end of any program */
	hermes_started_prog_t *head;
	int limit;
	hermes_handles_t ids;
};

int64_t hermes_started_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

hermes_started_t *hermes_started_new(int limit, const char *instance)
{
	hermes_started_t *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, &ca);
	pthread_condattr_destroy(&ca);
	t->limit = limit;
	hermes_handles_init(&t->ids, instance);
	return t;
}

/* Waits on the table's condition until deadline_ms (-1: a second at a time, for ever). */
static void wait_until(hermes_started_t *t, int64_t deadline_ms)
{
	int64_t until = deadline_ms >= 0 ? deadline_ms : hermes_started_now_ms() + 1000;
	struct timespec ts = {(time_t)(until / 1000), (long)(until % 1000) * 1000000};
	pthread_cond_timedwait(&t->cond, &t->lock, &ts);
}

/* ---- output ---------------------------------------------------------------------------- */

static size_t ring_pos(int64_t offset)
{
	return (size_t)(offset % HERMES_STARTED_KEEP);
}

static int64_t kept_from(const hermes_started_prog_t *p)
{
	return p->end > HERMES_STARTED_KEEP ? p->end - HERMES_STARTED_KEEP : 0;
}

static bool is_stderr(const hermes_started_prog_t *p, int64_t offset)
{
	size_t i = ring_pos(offset);
	return (p->marks[i >> 3] >> (i & 7)) & 1;
}

/* Appends output of one stream (1: stderr). Table lock held. */
static void put(hermes_started_prog_t *p, int stream, const char *s, size_t n)
{
	if (n > HERMES_STARTED_KEEP) {
		p->end += (int64_t)(n - HERMES_STARTED_KEEP);
		s += n - HERMES_STARTED_KEEP;
		n = HERMES_STARTED_KEEP;
	}
	while (n > 0) {
		size_t at = ring_pos(p->end), chunk = HERMES_STARTED_KEEP - at;
		if (chunk > n)
			chunk = n;
		memcpy(p->ring + at, s, chunk);
		for (size_t i = at; i < at + chunk; i++) {
			if (stream)
				p->marks[i >> 3] |= (unsigned char)(1u << (i & 7));
			else
				p->marks[i >> 3] &= (unsigned char)~(1u << (i & 7));
		}
		p->end += (int64_t)chunk;
		s += chunk;
		n -= chunk;
	}
}

static unsigned char byte_at(const hermes_started_prog_t *p, int64_t offset)
{
	return (unsigned char)p->ring[ring_pos(offset)];
}

int hermes_started_read(hermes_started_prog_t *p, int64_t since, size_t max, bool tail,
                        hermes_started_slice_t *out)
{
	hermes_started_t *t = p->t;
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&t->lock);
	int64_t end = p->end, start = kept_from(p);
	if (since < 0)
		since = p->cursor;
	if (since > end) {
		pthread_mutex_unlock(&t->lock);
		return -ERANGE;
	}
	int64_t from = since < start ? start : since;
	if (tail && end - from > (int64_t)max) {
		from = end - (int64_t)max;
		for (int k = 0; k < 3 && from < end && (byte_at(p, from) & 0xC0) == 0x80; k++)
			from++; /* not from the middle of a character */
	}
	int64_t to = end - from > (int64_t)max ? from + (int64_t)max : end;
	if (to < end) {
		for (int k = 0; k < 3 && to > from && (byte_at(p, to) & 0xC0) == 0x80; k++)
			to--;
	} else if (p->state != ENDED) {
		/* a character still being written is left for the next read */
		for (int64_t i = to - 1; i >= from && i >= to - 3; i--) {
			unsigned char c = byte_at(p, i);
			if ((c & 0xC0) == 0x80)
				continue;
			int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
			if (to - i < need)
				to = i;
			break;
		}
	}
	hermes_buf_t b[2] = {HERMES_BUF_INIT, HERMES_BUF_INIT};
	char *lin = malloc((size_t)(to - from) + 1);
	if (lin) {
		for (int64_t i = from; i < to;) {
			/* a run of one stream, copied out of the ring in order */
			int stream = is_stderr(p, i);
			int64_t j = i;
			while (j < to && is_stderr(p, j) == stream)
				j++;
			for (int64_t k = i; k < j; k++)
				lin[k - i] = (char)byte_at(p, k);
			hermes_buf_append_lossy(&b[stream], lin, (size_t)(j - i));
			i = j;
		}
		p->cursor = to;
	}
	pthread_mutex_unlock(&t->lock);
	free(lin);
	hermes_buf_append(&b[0], "", 0); /* an empty stream is "", not nothing */
	hermes_buf_append(&b[1], "", 0);
	out->text[0] = hermes_buf_finish(&b[0]);
	out->text[1] = hermes_buf_finish(&b[1]);
	if (!lin || !out->text[0] || !out->text[1]) {
		hermes_started_slice_free(out);
		return -ENOMEM;
	}
	out->next = to;
	out->dropped = from - since;
	out->more = to < end;
	return 0;
}

void hermes_started_slice_free(hermes_started_slice_t *s)
{
	free(s->text[0]);
	free(s->text[1]);
	s->text[0] = s->text[1] = NULL;
}

size_t hermes_started_peek(hermes_started_prog_t *p, int64_t from, char *buf, size_t size,
                           int64_t *at)
{
	pthread_mutex_lock(&p->t->lock);
	int64_t start = kept_from(p);
	if (from < start)
		from = start;
	size_t n = 0;
	for (; from + (int64_t)n < p->end && n < size; n++)
		buf[n] = (char)byte_at(p, from + (int64_t)n);
	pthread_mutex_unlock(&p->t->lock);
	*at = from;
	return n;
}

bool hermes_started_wait(hermes_started_prog_t *p, int64_t offset, int64_t deadline_ms,
                         const hermes_cancel_t *cancel)
{
	hermes_started_t *t = p->t;
	pthread_mutex_lock(&t->lock);
	if (offset < 0)
		offset = p->cursor;
	while (p->end <= offset && p->state != ENDED) {
		int64_t now = hermes_started_now_ms();
		if (now >= deadline_ms || (cancel && hermes_cancel_requested(cancel)))
			break;
		/* the cancel token has no condition of its own: look at it every 100 ms */
		wait_until(t, cancel && deadline_ms > now + 100 ? now + 100 : deadline_ms);
	}
	bool came = p->end > offset || p->state == ENDED;
	pthread_mutex_unlock(&t->lock);
	return came;
}

/* ---- the reader thread ----------------------------------------------------------------- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The line a program that could not be executed leaves in its stderr. */
static void note_start_error(hermes_started_prog_t *p, int rc)
{
	char line[1200], exe[256];
	size_t n = strcspn(p->command_line, " ");
	snprintf(exe, sizeof exe, "%.*s", (int)(n < 200 ? n : 200), p->command_line);
	const char *why = rc == -ENOENT ? "the interpreter of its #! line (or a library it needs) was not found"
	                  : rc == -ENOEXEC ? "it is not in an executable format"
	                  : rc == -HERMES_RUN_ESANDBOX ? "the strict sandbox needs the kernel's Landlock, which is not available here"
	                  : strerror(-rc);
	snprintf(line, sizeof line, "hermes: cannot run %s: %s\n", exe, why);
	put(p, 1, line, strlen(line));
}

/* Reads what there is on *fd into the ring; closes it at its end. */
static void drain(hermes_started_prog_t *p, int *fd, int stream)
{
	char buf[16384];
	ssize_t r = read(*fd, buf, sizeof buf);
	if (r > 0) {
		pthread_mutex_lock(&p->t->lock);
		put(p, stream, buf, (size_t)r);
		pthread_cond_broadcast(&p->t->cond);
		pthread_mutex_unlock(&p->t->lock);
	} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(*fd); /* the end, or EIO: a terminal whose every user is gone */
		*fd = -1;
	}
}

static void *reader(void *arg)
{
	hermes_started_prog_t *p = arg;
	hermes_started_t *t = p->t;
	hermes_run_t run;
	int rc = hermes_run_start(&p->spec, &run);
	pthread_mutex_lock(&t->lock);
	p->start_rc = rc;
	if (rc == 0) {
		p->run = run;
		p->pid = run.program;
		p->state = RUNNING;
	} else {
		p->state = ENDED;
	}
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	if (rc)
		return NULL;

	int64_t deadline = p->timeout_seconds > 0
	                   ? hermes_started_now_ms() + (int64_t)p->timeout_seconds * 1000 : -1;
	int64_t drain_until = -1; /* once the run has ended: the output's last moment */
	for (;;) {
		struct pollfd pf[4];
		int n = 0, io = -1, ie = -1, every = -1;
		if (p->out_r >= 0)
			pf[io = n++] = (struct pollfd){.fd = p->out_r, .events = POLLIN};
		if (p->err_r >= 0)
			pf[ie = n++] = (struct pollfd){.fd = p->err_r, .events = POLLIN};
		if (drain_until < 0) {
			int fds[2];
			int k = hermes_run_pollfds(&run, fds, &every);
			for (int i = 0; i < k; i++)
				pf[n++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		}
		int64_t now = hermes_started_now_ms(), wake = -1;
		if (drain_until >= 0) {
			/* everything of the program has ended; a descendant of a descendant that held
			 * the pipes is gone too, so their ends come at once: the limit is only a guard */
			if (n == 0 || now >= drain_until)
				break;
			wake = drain_until;
		} else if (every >= 0) {
			wake = now + every; /* no pidfd (old kernel), or a supervisor to wait for */
		}
		if (deadline >= 0 && drain_until < 0 && (wake < 0 || deadline < wake))
			wake = deadline;
		int ms = wake < 0 ? -1 : wake > now ? (int)(wake - now) : 0;
		if (poll(pf, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		if (io >= 0 && pf[io].revents)
			drain(p, &p->out_r, 0);
		if (ie >= 0 && pf[ie].revents)
			drain(p, &p->err_r, 1);
		if (drain_until < 0 && hermes_run_ended(&run))
			drain_until = hermes_started_now_ms() + 1000;
		if (deadline >= 0 && drain_until < 0 && hermes_started_now_ms() >= deadline) {
			pthread_mutex_lock(&t->lock);
			hermes_run_stop(&p->run, false); /* SIGTERM, then SIGKILL after the grace */
			pthread_mutex_unlock(&t->lock);
			deadline = -1;
		}
	}
	pthread_mutex_lock(&t->lock);
	p->state = REAPING; /* from now on nobody signals the supervisor, whose pid is being freed */
	pthread_mutex_unlock(&t->lock);
	/* An ended program keeps its output, and no descriptor. */
	pthread_mutex_lock(&p->write_lock);
	close_fd(&p->in_w);
	pthread_mutex_unlock(&p->write_lock);
	close_fd(&p->out_r);
	close_fd(&p->err_r);
	int status = 0;
	rc = hermes_run_finish(&run, &status);
	pthread_mutex_lock(&t->lock);
	p->exit_code = rc ? 127 : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	p->start_error = rc;
	if (rc)
		note_start_error(p, rc);
	p->state = ENDED;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* ---- the table ------------------------------------------------------------------------- */

/* Frees a program that is off the list and has no handle left. */
static void destroy(hermes_started_prog_t *p)
{
	if (p->has_thread)
		pthread_join(p->thread, NULL);
	close_fd(&p->out_r);
	close_fd(&p->err_r);
	close_fd(&p->in_w);
	for (int i = 0; i < 3; i++)
		close_fd(&p->child[i]);
	pthread_mutex_destroy(&p->write_lock);
	free(p->ring);
	free(p->marks);
	free(p);
}

/* Takes p off the list. Table lock held; true if the caller must destroy it (no handle left). */
static bool unlist(hermes_started_prog_t *p)
{
	if (!p->listed)
		return false;
	for (hermes_started_prog_t **pp = &p->t->head; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	p->listed = false;
	return --p->refs == 0;
}

void hermes_started_release(hermes_started_prog_t *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->t->lock);
	bool last = --p->refs == 0;
	pthread_mutex_unlock(&p->t->lock);
	if (last)
		destroy(p);
}

void hermes_started_collect(hermes_started_prog_t *p)
{
	pthread_mutex_lock(&p->t->lock);
	bool last = unlist(p);
	pthread_mutex_unlock(&p->t->lock);
	if (last)
		destroy(p);
}

const char *hermes_started_instance(const hermes_started_t *t)
{
	return t->ids.instance;
}

hermes_started_prog_t *hermes_started_find(hermes_started_t *t, const char *id)
{
	pthread_mutex_lock(&t->lock);
	hermes_started_prog_t *p = t->head;
	while (p && strcmp(p->id, id) != 0)
		p = p->next;
	if (p)
		p->refs++;
	pthread_mutex_unlock(&t->lock);
	return p;
}

/* Makes our ends and the program's: a terminal, or three pipes. 0 or -errno. */
static int make_fds(hermes_started_prog_t *p, const hermes_started_opts_t *o)
{
	if (o->tty) {
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		char name[64];
		if (m < 0)
			return -errno;
		p->out_r = m;
		if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, sizeof name) != 0)
			return -errno;
		struct winsize ws = {.ws_row = (unsigned short)o->rows, .ws_col = (unsigned short)o->columns};
		ioctl(m, TIOCSWINSZ, &ws);
		int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (s < 0)
			return -errno;
		p->child[0] = s;
		if ((p->child[1] = fcntl(s, F_DUPFD_CLOEXEC, 3)) < 0 ||
		    (p->child[2] = fcntl(s, F_DUPFD_CLOEXEC, 3)) < 0 ||
		    (p->in_w = fcntl(m, F_DUPFD_CLOEXEC, 3)) < 0)
			return -errno;
		/* the master's description is shared by out_r and in_w: both non-blocking */
		return fcntl(m, F_SETFL, O_NONBLOCK) == 0 ? 0 : -errno;
	}
	int fds[3][2];
	for (int i = 0; i < 3; i++) {
		if (pipe2(fds[i], O_CLOEXEC) != 0)
			return -errno;
		/* the program's input is its read end; its output, the write ends */
		p->child[i] = i == 0 ? fds[i][0] : fds[i][1];
		int ours = i == 0 ? fds[i][1] : fds[i][0];
		if (i == 0)
			p->in_w = ours;
		else if (i == 1)
			p->out_r = ours;
		else
			p->err_r = ours;
		if (fcntl(ours, F_SETFL, O_NONBLOCK) != 0)
			return -errno;
	}
	return 0;
}

/* Counts the programs running, and collects the oldest ended ones past the limit. Table lock
 * held; those to destroy go to *gone. */
static int running_count(hermes_started_t *t, hermes_started_prog_t **gone)
{
	int running = 0, ended = 0;
	for (hermes_started_prog_t *p = t->head; p; p = p->next)
		if (p->state == ENDED)
			ended++;
		else
			running++;
	for (hermes_started_prog_t *p = t->head, *nx; p && ended >= t->limit; p = nx) {
		nx = p->next;
		if (p->state == ENDED) {
			ended--;
			if (unlist(p)) {
				p->next = *gone;
				*gone = p;
			}
		}
	}
	return running;
}

int hermes_started_start(hermes_started_t *t, const hermes_spawn_t *spec,
                         const hermes_started_opts_t *opts, hermes_started_prog_t **out)
{
	hermes_started_prog_t *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->t = t;
	p->out_r = p->err_r = p->in_w = -1;
	p->child[0] = p->child[1] = p->child[2] = -1;
	pthread_mutex_init(&p->write_lock, NULL);
	p->ring = malloc(HERMES_STARTED_KEEP);
	p->marks = calloc(HERMES_STARTED_KEEP / 8, 1);
	int rc = p->ring && p->marks ? make_fds(p, opts) : -ENOMEM;
	if (rc) {
		destroy(p);
		return rc;
	}
	snprintf(p->command_line, sizeof p->command_line, "%s", opts->command_line);
	p->tty = opts->tty;
	p->timeout_seconds = opts->timeout_seconds;
	p->started = time(NULL);
	p->spec = *spec;
	p->spec.in_fd = p->child[0];
	p->spec.out_fd = p->child[1];
	p->spec.err_fd = p->child[2];
	p->spec.tty = opts->tty;

	hermes_started_prog_t *gone = NULL;
	pthread_mutex_lock(&t->lock);
	if (running_count(t, &gone) >= t->limit) {
		pthread_mutex_unlock(&t->lock);
		rc = -EAGAIN;
	} else {
		hermes_handles_mint(&t->ids, 'p', p->id, sizeof p->id);
		p->state = STARTING;
		p->listed = true;
		p->refs = 2; /* the list's, and the caller's */
		hermes_started_prog_t **tail = &t->head;
		while (*tail)
			tail = &(*tail)->next;
		*tail = p;
		pthread_mutex_unlock(&t->lock);
	}
	while (gone) {
		hermes_started_prog_t *nx = gone->next;
		destroy(gone);
		gone = nx;
	}
	if (rc) {
		destroy(p);
		return rc;
	}

	/* The reader thread forks the supervisor, whose death signal then follows that thread: it
	 * lives as long as the program. It takes no signal of the process's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&p->thread, NULL, reader, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&t->lock);
	if (rc) {
		p->state = ENDED;
		p->start_rc = rc;
	} else {
		p->has_thread = true;
	}
	while (p->state == STARTING)
		pthread_cond_wait(&t->cond, &t->lock);
	rc = p->start_rc;
	pthread_mutex_unlock(&t->lock);
	for (int i = 0; i < 3; i++)
		close_fd(&p->child[i]); /* the program has its own copies now */
	if (rc) {
		hermes_started_collect(p);
		hermes_started_release(p);
		return rc;
	}
	*out = p;
	return 0;
}

void hermes_started_info(hermes_started_prog_t *p, hermes_started_info_t *info)
{
	pthread_mutex_lock(&p->t->lock);
	memcpy(info->id, p->id, sizeof info->id);
	memcpy(info->command_line, p->command_line, sizeof info->command_line);
	info->pid = p->pid;
	info->running = p->state != ENDED;
	info->exit_code = p->exit_code;
	info->start_error = p->start_error;
	info->output_bytes = p->end;
	info->started = p->started;
	info->tty = p->tty;
	pthread_mutex_unlock(&p->t->lock);
}

int hermes_started_list(hermes_started_t *t, hermes_started_info_t **out, size_t *count)
{
	pthread_mutex_lock(&t->lock);
	size_t n = 0;
	for (hermes_started_prog_t *p = t->head; p; p = p->next)
		n++;
	hermes_started_prog_t **all = calloc(n ? n : 1, sizeof *all);
	size_t i = 0;
	for (hermes_started_prog_t *p = t->head; all && p; p = p->next, i++) {
		all[i] = p;
		p->refs++;
	}
	pthread_mutex_unlock(&t->lock);
	if (!all)
		return -ENOMEM;
	hermes_started_info_t *info = calloc(n ? n : 1, sizeof *info);
	for (i = 0; i < n; i++) {
		if (info)
			hermes_started_info(all[i], &info[i]);
		hermes_started_release(all[i]);
	}
	free(all);
	if (!info)
		return -ENOMEM;
	*out = info;
	*count = n;
	return 0;
}

/* A terminal in canonical mode keeps at most HERMES_STARTED_TTY_LINE_MAX bytes of a line that
 * has not ended and silently drops the rest (Linux's n_tty), so a write that would make a longer
 * line is refused whole: what is counted written is what the program can read. Returns the
 * length the unfinished line would have after text, or SIZE_MAX if some line is too long. */
static size_t tty_line_after(const hermes_started_prog_t *p, const char *text, size_t len)
{
	struct termios tio;
	memset(&tio, 0, sizeof tio);
	bool canonical = tcgetattr(p->in_w, &tio) == 0 && (tio.c_lflag & ICANON);
	size_t line = p->tty_line;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		/* what ends the line: newline, return (with ICRNL), the end-of-file and end-of-line
		 * characters, and (with ISIG) the signals that flush it */
		bool ends = c == '\n' || (c == '\r' && (tio.c_iflag & ICRNL) && !(tio.c_iflag & IGNCR));
		if (canonical && c != '\0')
			ends |= c == (char)tio.c_cc[VEOF] || c == (char)tio.c_cc[VEOL] ||
			        c == (char)tio.c_cc[VEOL2] || ((tio.c_lflag & ISIG) &&
			        (c == (char)tio.c_cc[VINTR] || c == (char)tio.c_cc[VQUIT]));
		if (ends)
			line = 0;
		else if (++line > HERMES_STARTED_TTY_LINE_MAX && canonical)
			return SIZE_MAX;
	}
	return canonical ? line : 0;
}

int hermes_started_write(hermes_started_prog_t *p, const char *text, size_t len, bool close_stdin,
                         size_t *written)
{
	*written = 0;
	pthread_mutex_lock(&p->t->lock);
	bool ended = p->state != RUNNING;
	pthread_mutex_unlock(&p->t->lock);
	pthread_mutex_lock(&p->write_lock);
	int rc = 0;
	if (p->stdin_closed) {
		rc = -EBADF;
	} else if (ended || p->in_w < 0) {
		rc = -EPIPE;
	} else if (p->tty && tty_line_after(p, text, len) == SIZE_MAX) {
		rc = -EMSGSIZE;
	} else {
		/* A reader gone raises SIGPIPE: blocked in this thread, and taken back if it was ours. */
		sigset_t pipe_set, old, pending;
		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
		sigpending(&pending);
		bool was_pending = sigismember(&pending, SIGPIPE);
		rc = hermes_write_all_timed(p->in_w, text, len, HERMES_STARTED_WRITE_MS, written);
		if (p->tty)
			p->tty_line = tty_line_after(p, text, *written);
		if (rc == 0 && close_stdin && p->tty) {
			size_t one = 0;
			/* VEOF: end of input at a line's start */
			rc = hermes_write_all_timed(p->in_w, "\x04", 1, HERMES_STARTED_WRITE_MS, &one);
		}
		if (rc == -EPIPE && !was_pending) {
			struct timespec zero = {0, 0};
			sigtimedwait(&pipe_set, NULL, &zero);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc == 0 && close_stdin) {
			if (!p->tty)
				close_fd(&p->in_w);
			p->stdin_closed = true;
		}
	}
	pthread_mutex_unlock(&p->write_lock);
	return rc;
}

/* Signals the program's group, if it still runs. Table lock held. */
static void signal_group(hermes_started_prog_t *p, int sig)
{
	if (p->state != RUNNING || p->pid <= 0)
		return;
	if (kill(-p->pid, sig) != 0 && errno == ESRCH)
		kill(p->pid, sig); /* a tty's program between its fork and its setsid */
}

/* Waits for p's end until deadline_ms. Table lock held. */
static bool wait_end(hermes_started_prog_t *p, int64_t deadline_ms)
{
	while (p->state != ENDED && hermes_started_now_ms() < deadline_ms)
		wait_until(p->t, deadline_ms);
	return p->state == ENDED;
}

int hermes_started_stop(hermes_started_prog_t *p, int sig, int grace_ms)
{
	hermes_started_t *t = p->t;
	pthread_mutex_lock(&t->lock);
	signal_group(p, sig);
	if (!wait_end(p, hermes_started_now_ms() + grace_ms)) {
		signal_group(p, SIGKILL);
		if (p->state == RUNNING)
			hermes_run_stop(&p->run, true); /* and the supervisor ends every descendant */
		if (!wait_end(p, hermes_started_now_ms() + 5000) && p->state == RUNNING) {
			kill(p->run.pid, SIGKILL); /* a supervisor that does not answer (should not be) */
			wait_end(p, hermes_started_now_ms() + 5000);
		}
	}
	int rc = p->state == ENDED ? 0 : -ETIMEDOUT;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void hermes_started_free(void *table)
{
	hermes_started_t *t = table;
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	for (hermes_started_prog_t *p = t->head; p; p = p->next)
		if (p->state == RUNNING)
			hermes_run_stop(&p->run, true); /* SIGTERM, SIGKILL after the urgent grace */
	int64_t deadline = hermes_started_now_ms() + HERMES_RUN_URGENT_GRACE_MS + 2000;
	for (hermes_started_prog_t *p = t->head; p; p = p->next) {
		if (!wait_end(p, deadline) && p->state == RUNNING)
			kill(p->run.pid, SIGKILL);
		wait_end(p, hermes_started_now_ms() + 5000);
	}
	hermes_started_prog_t *gone = NULL;
	while (t->head) {
		hermes_started_prog_t *p = t->head;
		if (unlist(p)) {
			p->next = gone;
			gone = p;
		}
	}
	pthread_mutex_unlock(&t->lock);
	while (gone) {
		hermes_started_prog_t *nx = gone->next;
		destroy(gone);
		gone = nx;
	}
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
