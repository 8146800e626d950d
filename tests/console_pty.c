/* tests/console_pty.c: drives a program through a pseudo-terminal as a person at a keyboard
 * would, following a script read from stdin (a tiny `expect`):
 *
 *   send TEXT      once the program reads keys one by one (its line editor has put the terminal
 *                  in non-canonical mode), type TEXT (escapes: \r \n \t \e \\ \xHH; \x03 is
 *                  Ctrl-C, \x04 Ctrl-D)
 *   sendnow TEXT   type TEXT at once, whatever the terminal mode (Ctrl-C while a verb runs)
 *   expect TEXT    wait until the screen output shows TEXT (after the previous match)
 *   reject TEXT    fail if TEXT appears anywhere in the output so far
 *   raw TEXT       wait until the raw output (control sequences kept) shows TEXT
 *   rawreject TEXT fail if the raw output so far holds TEXT
 *   sleep MS       wait MS milliseconds, reading output
 *   kill N         send signal N to the program
 *   exit N         wait for the program to end and check its exit status
 *
 * Output is matched with terminal control sequences, carriage returns and padding NULs removed. On failure the
 * whole transcript is printed. usage: console_pty [-t SECONDS] PROGRAM [ARG...] <SCRIPT */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int master = -1;
static pid_t child;
static char *screen;   /* output with control sequences removed */
static size_t screen_len, screen_cap, matched;
static char *raw;      /* output as written, NULs dropped */
static size_t raw_len, raw_cap;
static int esc_state;  /* 0 text, 1 after ESC, 2 in a CSI sequence, 3 in an OSC string */
static bool eof;
static int timeout_ms = 10000;
static int lineno;

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "console_pty: script line %d: ", lineno);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n----- output -----\n%.*s\n----- end -----\n", (int)screen_len, screen);
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

static void add(char c)
{
	if (screen_len + 1 >= screen_cap) {
		screen_cap = screen_cap ? screen_cap * 2 : 4096;
		screen = realloc(screen, screen_cap);
		if (!screen) {
			perror("console_pty");
			exit(99);
		}
	}
	screen[screen_len++] = c;
	screen[screen_len] = '\0';
}

static void add_raw(char c)
{
	if (raw_len + 1 >= raw_cap) {
		raw_cap = raw_cap ? raw_cap * 2 : 4096;
		raw = realloc(raw, raw_cap);
		if (!raw) {
			perror("console_pty");
			exit(99);
		}
	}
	raw[raw_len++] = c;
	raw[raw_len] = '\0';
}

static void absorb(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c)
			add_raw((char)c);
		switch (esc_state) {
		case 0:
			if (c == 0x1b)
				esc_state = 1;
			else if (c != '\r' && c != '\a' && c != '\b' && c != 0)
				add((char)c);
			break;
		case 1:
			esc_state = c == '[' ? 2 : c == ']' ? 3 : 0;
			break;
		case 2:
			if (c >= 0x40 && c <= 0x7e)
				esc_state = 0;
			break;
		case 3:
			if (c == '\a')
				esc_state = 0;
			break;
		}
	}
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Reads what the program wrote for up to ms milliseconds (less if eof). */
static void pump(int ms)
{
	if (eof) return;
	struct pollfd p = { master, POLLIN, 0 };
	int r = poll(&p, 1, ms);
	if (r <= 0)
		return;
	char buf[4096];
	ssize_t n = read(master, buf, sizeof buf);
	if (n > 0)
		absorb(buf, (size_t)n);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		eof = true; /* EIO: the program closed the terminal */
}

static size_t unescape(const char *in, char *out)
{
	size_t n = 0;
	for (const char *p = in; *p; p++) {
		if (*p != '\\' || !p[1]) {
			out[n++] = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'r': out[n++] = '\r'; break;
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'e': out[n++] = 0x1b; break;
		case 'x': {
			char hex[3] = { p[1], p[1] ? p[2] : 0, 0 };
			out[n++] = (char)strtol(hex, NULL, 16);
			p += 2;
			break;
		}
		default: out[n++] = *p; break;
		}
	}
	out[n] = '\0';
	return n;
}

int main(int argc, char **argv)
{
	int argi = 1;
	if (argi + 1 < argc && !strcmp(argv[argi], "-t")) {
		timeout_ms = atoi(argv[argi + 1]) * 1000;
		argi += 2;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: console_pty [-t SECONDS] PROGRAM [ARG...] <SCRIPT\n");
		return 99;
	}
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	child = forkpty(&master, NULL, NULL, &ws);
	if (child < 0) {
		perror("console_pty: forkpty");
		return 77; /* no pseudo-terminals here (some containers): skip */
	}
	if (child == 0) {
		/* As a terminal emulator starts a shell: the keyboard's signals act. A test run started
		 * in the background by a shell without job control (`make check &`, nohup) inherits
		 * SIGINT and SIGQUIT ignored, and a console keeps an ignored signal ignored. */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		setenv("TERM", "vt100", 1);
		execvp(argv[argi], argv + argi);
		perror("console_pty: exec");
		_exit(127);
	}
	char line[8192], text[8192];
	while (fgets(line, sizeof line, stdin)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *arg = strchr(line, ' ');
		arg = arg ? arg + 1 : line + strlen(line);
		size_t n = unescape(arg, text);
		if (!strncmp(line, "send ", 5)) {
			/* A person types at the prompt; keys sent while the terminal is still canonical
			 * would be taken by the line discipline (^D as end of file) instead. */
			long deadline = now_ms() + timeout_ms;
			struct termios t;
			while (tcgetattr(master, &t) == 0 && (t.c_lflag & ICANON)) {
				if (now_ms() >= deadline || eof)
					fail("the program never read from the terminal key by key (sending \"%s\")", arg);
				pump(5);
			}
		}
		if (!strncmp(line, "send ", 5) || !strncmp(line, "sendnow ", 8)) {
			/* Type it a character at a time, as a keyboard does. */
			for (size_t i = 0; i < n; i++) {
				if (write(master, text + i, 1) != 1)
					fail("cannot type: %s", strerror(errno));
				pump(2);
			}
		} else if (!strncmp(line, "expect ", 7)) {
			long deadline = now_ms() + timeout_ms;
			char *hit;
			while (!(hit = strstr(screen ? screen + matched : "", text))) {
				long left = deadline - now_ms();
				if (left <= 0 || eof) {
					pump(50);
					if ((hit = strstr(screen ? screen + matched : "", text)))
						break;
					fail("timed out waiting for \"%s\"", arg);
				}
				pump((int)(left < 100 ? left : 100));
			}
			matched = (size_t)(hit - screen) + n;
		} else if (!strncmp(line, "raw ", 4)) {
			long deadline = now_ms() + timeout_ms;
			while (!(raw && strstr(raw, text))) {
				if (now_ms() >= deadline || eof)
					fail("timed out waiting for raw \"%s\"", arg);
				pump(100);
			}
		} else if (!strncmp(line, "rawreject ", 10)) {
			if (raw && strstr(raw, text))
				fail("unexpected raw \"%s\" in the output", arg);
		} else if (!strncmp(line, "reject ", 7)) {
			if (screen && strstr(screen, text))
				fail("unexpected \"%s\" in the output", arg);
		} else if (!strncmp(line, "kill ", 5)) {
			if (kill(child, atoi(arg)) != 0)
				fail("cannot signal the program: %s", strerror(errno));
		} else if (!strncmp(line, "sleep ", 6)) {
			long deadline = now_ms() + atol(arg);
			while (now_ms() < deadline && !eof)
				pump((int)(deadline - now_ms()));
			if (eof)
				usleep(1000 * (useconds_t)(deadline > now_ms() ? deadline - now_ms() : 0));
		} else if (!strncmp(line, "exit ", 5)) {
			long deadline = now_ms() + timeout_ms;
			int status;
			pid_t r;
			while ((r = waitpid(child, &status, WNOHANG)) == 0 && now_ms() < deadline)
				pump(50);
			if (r == 0)
				fail("the program did not exit (expected status %s)", arg);
			child = 0;
			while (!eof) /* what it wrote last, for the transcript */
				pump(100);
			char got[64];
			if (WIFEXITED(status))
				snprintf(got, sizeof got, "%d", WEXITSTATUS(status));
			else
				snprintf(got, sizeof got, "signal %d", WTERMSIG(status));
			if (strcmp(got, arg) != 0)
				fail("exit status %s", got);
		} else {
			fail("unknown command: %s", line);
		}
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 0;
}
