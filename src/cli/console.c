/* cli/console.c: the interactive console (`hermes exec --interactive`, `hermes -i`): reads lines
 * from a terminal (through libedit) or a pipe, gathers them into envelopes at the submission
 * boundaries of console_entry.h, runs each, prints the results; :commands at the prompt. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/fdio.h"
#include "cli/console.h"
#include "cli/console_edit.h"
#include "cli/console_entry.h"
#include "cli/console_signal.h"
#include "core/executor.h"
#include "core/idl.h"

#define PROMPT      "hermes> "
#define PROMPT_MORE "   ...> "

typedef struct console {
	hermes_executor_t *ex;
	int in_fd, out_fd, err_fd;
	int echo_fd;       /* the terminal the person types on (prompts, ^C) */
	bool interactive;  /* in_fd is a terminal: prompt, editing, history */
	bool color;        /* red errors on err_fd */
	unsigned flags;    /* for hermes_execute */
	hermes_editor_t *ed;
	hermes_console_entry_t entry;
	long line;         /* piped: number of the line being fed */
	long entry_line;   /* piped: line where the current envelope starts */
	int worst;         /* the worst outcome so far (piped exit status) */
	int stop;          /* a signal that ends the console (its number), or 0 */
	bool quit;
	bool output_lost;  /* a write to out_fd failed: status 1, nothing more runs */
} console_t;

/* A closed terminal or pipe leaves nothing useful to do with output: errors are not reported. */
static void write_all(int fd, const char *s, size_t n)
{
	(void)hermes_write_all(fd, s, n);
}

static void put(int fd, const char *s)
{
	write_all(fd, s, strlen(s));
}

static void say(int fd, const char *fmt, ...) HERMES_PRINTF(2, 3);
static void say(int fd, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	write_all(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* An error for the person (or script) on err_fd, red when that is a colour terminal. */
static void complain(console_t *c, const char *fmt, ...) HERMES_PRINTF(2, 3);

/* What the reader asked for (results, the answers of :commands), on out_fd. A failed write (a
 * full disk, a closed pipe) ends the console with status 1, as it ends hermes exec: nobody would
 * see the results of what came next. */
static void show(console_t *c, const char *s)
{
	if (c->output_lost)
		return;
	int rc = hermes_write_all(c->out_fd, s, strlen(s));
	if (rc == 0)
		return;
	c->output_lost = c->quit = true;
	complain(c, "cannot write the result to standard output: %s", strerror(-rc));
}

static void complain(console_t *c, const char *fmt, ...)
{
	char msg[6144];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->color)
		say(c->err_fd, "\033[31merror: %s\033[0m\n", msg);
	else
		say(c->err_fd, "%s%s\n", c->interactive ? "error: " : "hermes: ", msg);
}

static bool use_color(int fd)
{
	const char *no_color = getenv("NO_COLOR"); /* https://no-color.org: any non-empty value */
	const char *term = getenv("TERM");
	return isatty(fd) && !(no_color && no_color[0]) && term && term[0] && strcmp(term, "dumb") != 0;
}

/* ---- :commands ------------------------------------------------------------------------------ */

static void cmd_help(console_t *c)
{
	show(c,
	    "Type an envelope, as YAML or JSON:\n"
	    "  verb: fs.readRange                    {\"verb\": \"fs.exists\",\n"
	    "  arguments:                             \"arguments\": {\"path\": \"README.md\"}}\n"
	    "    path: README.md\n"
	    "    startLine: 1\n"
	    "    endLine: 10\n"
	    "  (empty line)\n"
	    "JSON runs as soon as its outer object closes. YAML runs at an empty line or a line\n"
	    "holding only --- or ...; inside a block scalar (content: |) empty lines are text,\n"
	    "and ... ends the envelope.\n"
	    "\n"
	    "Commands:\n"
	    "  :help          this text\n"
	    "  :verbs         the verbs, with what each does\n"
	    "  :schema VERB   a verb's arguments and result, field by field\n"
	    "  :root          the workspace root\n"
	    "  :quit          leave (so does Ctrl-D at an empty prompt)\n"
	    "\n"
	    "Tab completes verb names and commands. Ctrl-C abandons the envelope being typed, or\n"
	    "stops the running verb (proc.run ends its program's process group).\n"
	    "See hermes(1) and hermes-verbs(7).\n");
}

static void cmd_verbs(console_t *c)
{
	size_t n = hermes_executor_verb_count(c->ex), width = 0;
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(hermes_executor_verb_at(c->ex, i)->name);
		if (w > width)
			width = w;
	}
	for (size_t i = 0; i < n; i++) {
		const hermes_verb_desc_t *v = hermes_executor_verb_at(c->ex, i);
		char line[1024];
		snprintf(line, sizeof line, "%-*s  %s\n", (int)width, v->name, v->description);
		show(c, line);
	}
}

static void cmd_schema(console_t *c, const char *arg)
{
	if (!*arg) {
		complain(c, ":schema needs a verb name, e.g. :schema fs.readRange (see :verbs)");
		return;
	}
	const hermes_verb_desc_t *v = hermes_executor_find(c->ex, arg);
	if (!v) {
		complain(c, "unknown verb '%s' (see :verbs)", arg);
		return;
	}
	char *idl = hermes_idl_for_verb(v);
	if (!idl) {
		complain(c, "out of memory");
		return;
	}
	show(c, idl);
	free(idl);
}

static void run_command(console_t *c, const char *line, size_t len)
{
	char buf[512];
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	char *name = buf + 1, *arg = name;
	while (*arg && *arg != ' ' && *arg != '\t')
		arg++;
	if (*arg)
		*arg++ = '\0';
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (!strcmp(name, "help") || !strcmp(name, "h") || !strcmp(name, "?"))
		cmd_help(c);
	else if (!strcmp(name, "verbs"))
		cmd_verbs(c);
	else if (!strcmp(name, "schema"))
		cmd_schema(c, arg);
	else if (!strcmp(name, "root")) {
		show(c, hermes_executor_root(c->ex));
		show(c, "\n");
	}
	else if (!strcmp(name, "quit") || !strcmp(name, "q") || !strcmp(name, "exit"))
		c->quit = true;
	else
		complain(c, "unknown command ':%s' (expected :help, :verbs, :schema VERB, :root or :quit)", name);
}

/* ---- running an envelope --------------------------------------------------------------------- */

static void submit(console_t *c)
{
	hermes_console_entry_t *e = &c->entry;
	if (c->ed && e->text.len > 0 && !e->oversized)
		hermes_editor_remember(c->ed, e->text.data, e->text.len);
	if (e->text.len == 0 || hermes_entry_text_blank(e->text.data, e->text.len)) {
		hermes_entry_reset(e);
		return;
	}
	if (e->oversized) {
		/* Refused here, unread: the text was not kept past the limit. */
		hermes_error_t big;
		memset(&big, 0, sizeof big);
		big.code = HERMES_E_INVALID_ENVELOPE;
		snprintf(big.message, sizeof big.message,
		         "the envelope is larger than %zu bytes (--max-envelope-bytes)", e->limit);
		complain(c, "%s", big.message);
		char *result = c->interactive ? NULL : hermes_error_result_json(&big, c->flags);
		if (result) {
			show(c, result);
			show(c, "\n");
			free(result);
		}
		c->worst = HERMES_OUTCOME_INVALID;
		hermes_entry_reset(e);
		return;
	}

	hermes_cancel_t *cancel = hermes_cancel_new();
	hermes_console_set_running(cancel);
	hermes_console_signals(HERMES_SIGMODE_EXECUTE, c->interactive);
	/* A Ctrl-C since the envelope was entered (flags are cleared once dealt with) was meant for
	 * it: it runs cancelled rather than the Ctrl-C being lost. */
	if (hermes_console_sigint)
		hermes_cancel_request(cancel);
	char *result = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_outcome_t outcome = hermes_execute(c->ex, e->text.data, e->text.len, c->flags, cancel,
	                                          &result, &err);
	hermes_console_set_running(NULL);
	if (c->interactive)
		hermes_console_signals(HERMES_SIGMODE_READ, true);
	else
		hermes_console_signals(HERMES_SIGMODE_DEFAULT, false);
	hermes_cancel_free(cancel);
	/* At the prompt, a Ctrl-C that stopped the verb must not also abandon what is typed next;
	 * piped, it was meant for the whole run. SIGTERM and SIGHUP always end the console. */
	if (hermes_console_sigint && c->interactive)
		put(c->echo_fd, "\n"); /* after the terminal's echo of ^C */
	if (hermes_console_sigend)
		c->stop = hermes_console_sigend;
	else if (hermes_console_sigint && !c->interactive)
		c->stop = SIGINT;
	hermes_console_sigint = 0;
	if (c->stop)
		c->quit = true;

	if ((int)outcome > c->worst)
		c->worst = (int)outcome;
	if (outcome == HERMES_OUTCOME_INVALID) {
		/* Say where, in the terms the person sees: lines of the envelope at the prompt, lines
		 * of the input when piped. */
		const char *msg = err.message[0] ? err.message : "invalid envelope";
		char col[32] = "";
		if (err.line > 0 && err.column > 0)
			snprintf(col, sizeof col, c->interactive ? ", column %d" : ":%d", err.column);
		if (err.line > 0 && c->interactive)
			complain(c, "line %d%s: %s", err.line, col, msg);
		else if (err.line > 0)
			complain(c, "<stdin>:%ld%s: %s", c->entry_line + err.line - 1, col, msg);
		else if (!c->interactive)
			complain(c, "<stdin>:%ld: %s", c->entry_line, msg);
		else
			complain(c, "%s", msg);
	}
	if (!result) {
		complain(c, "out of memory");
	} else if (!(c->interactive && outcome == HERMES_OUTCOME_INVALID)) {
		show(c, result);
		show(c, "\n");
	}
	free(result);
	hermes_entry_reset(e);
}

/* Feeds one line (without its '\n'): a :command if no envelope is under way, else envelope text,
 * which may complete one envelope or more (JSON envelopes can share a line). */
static int feed_line(console_t *c, const char *line, size_t len)
{
	hermes_console_entry_t *e = &c->entry;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (hermes_entry_empty(e)) {
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i < len && line[i] == ':') {
			if (c->ed)
				hermes_editor_remember(c->ed, line + i, len - i);
			run_command(c, line + i, len - i);
			return 0;
		}
	}
	size_t off = 0;
	do {
		bool was_empty = hermes_entry_empty(e);
		size_t used;
		int st = hermes_entry_feed(e, line + off, len - off, &used);
		if (st < 0)
			return -1;
		if (was_empty && !hermes_entry_empty(e))
			c->entry_line = c->line;
		if (st != HERMES_ENTRY_SUBMIT)
			break;
		submit(c);
		off += used;
		while (off < len && (line[off] == ' ' || line[off] == '\t'))
			off++;
	} while (off < len && !c->quit);
	return 0;
}

/* ---- the two loops ----------------------------------------------------------------------------- */

static int run_interactive(console_t *c)
{
	/* libedit edits in the locale's character set. Envelopes are UTF-8 whatever the locale, so
	 * in a non-UTF-8 one (the C locale of a bare environment) typed UTF-8 would be dropped. */
	setlocale(LC_CTYPE, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		setlocale(LC_CTYPE, "C.UTF-8");
	char *history = hermes_editor_history_path();
	int echo_fd = isatty(c->out_fd) ? c->out_fd : c->err_fd; /* prompts never go into a file */
	c->echo_fd = echo_fd;
	c->ed = hermes_editor_new(c->in_fd, echo_fd, c->err_fd, c->ex, history);
	free(history);
	if (!c->ed) {
		complain(c, "cannot start line editing on the terminal");
		return 2;
	}
	hermes_console_signals(HERMES_SIGMODE_READ, true);
	int status = 0;
	while (!c->quit) {
		const char *text;
		size_t len;
		bool fresh = hermes_entry_empty(&c->entry);
		int r = hermes_editor_read(c->ed, fresh ? PROMPT : PROMPT_MORE, fresh, &text, &len);
		if (hermes_console_sigend) {
			c->stop = hermes_console_sigend;
			break;
		}
		if (r == HERMES_EDITOR_INTERRUPTED) {
			/* Ctrl-C while typing: drop the envelope, start again at a fresh prompt. */
			hermes_console_sigint = 0;
			hermes_entry_reset(&c->entry);
			put(echo_fd, "^C\n");
			continue;
		}
		if (r == HERMES_EDITOR_EOF) {
			put(echo_fd, "\n");
			if (hermes_entry_empty(&c->entry))
				break;
			submit(c); /* Ctrl-D at the continuation prompt ends the envelope */
			continue;
		}
		if (r == HERMES_EDITOR_ERROR) {
			complain(c, "cannot read the terminal: %s", strerror(errno));
			status = 2;
			break;
		}
		/* A recalled history entry (or a paste) can hold several lines: it is one envelope. */
		bool was_empty = hermes_entry_empty(&c->entry);
		bool several = memchr(text, '\n', len - 1) != NULL;
		for (size_t i = 0; i < len && !c->quit;) {
			const char *nl = memchr(text + i, '\n', len - i);
			size_t end = nl ? (size_t)(nl - text) : len;
			if (feed_line(c, text + i, end - i) < 0) {
				complain(c, "out of memory");
				hermes_entry_reset(&c->entry);
				break;
			}
			i = end + 1;
		}
		if (several && was_empty && !hermes_entry_empty(&c->entry) && !c->entry.json)
			submit(c);
	}
	hermes_console_signals(HERMES_SIGMODE_DEFAULT, true);
	hermes_editor_free(c->ed);
	c->ed = NULL;
	return c->stop ? 128 + c->stop : status;
}

static int run_piped(console_t *c)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		complain(c, "out of memory");
		return 2;
	}
	bool eof = false;
	int status = -1;
	while (status < 0 && !c->quit) {
		/* Feed every complete line in the buffer. */
		size_t start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', len - start);
			if (!nl && !(eof && start < len))
				break;
			size_t end = nl ? (size_t)(nl - buf) : len;
			c->line++;
			if (feed_line(c, buf + start, end - start) < 0) {
				complain(c, "out of memory");
				status = 2;
				break;
			}
			start = nl ? end + 1 : len;
			if (c->quit)
				break;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (status >= 0 || c->quit)
			break;
		if (eof) {
			if (!hermes_entry_empty(&c->entry))
				submit(c); /* the end of input ends the last envelope */
			break;
		}
		if (len == cap) {
			/* A line longer than the buffer: grow, but not past the envelope limit. */
			if (c->entry.limit && cap > c->entry.limit + 1) {
				complain(c, "line %ld is longer than the largest envelope (%zu bytes)", c->line + 1,
				         c->entry.limit);
				status = 2;
				break;
			}
			char *p = realloc(buf, cap * 2);
			if (!p) {
				complain(c, "out of memory");
				status = 2;
				break;
			}
			buf = p;
			cap *= 2;
		}
		ssize_t n = read(c->in_fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			complain(c, "cannot read the input: %s", strerror(errno));
			status = 2;
			break;
		}
		if (n == 0)
			eof = true;
		len += (size_t)n;
	}
	free(buf);
	if (c->stop)
		return 128 + c->stop;
	return status >= 0 ? status : c->worst;
}

int hermes_console_run(hermes_executor_t *ex, const hermes_console_options_t *opts)
{
	console_t c;
	memset(&c, 0, sizeof c);
	c.ex = ex;
	c.in_fd = opts->in_fd;
	c.out_fd = opts->out_fd;
	c.err_fd = opts->err_fd;
	c.interactive = isatty(opts->in_fd);
	c.color = use_color(opts->err_fd);
	c.flags = (opts->pretty || isatty(opts->out_fd)) ? HERMES_JSON_PRETTY : 0;
	const hermes_config_t *cfg = hermes_executor_config(ex);
	hermes_entry_init(&c.entry, cfg && cfg->max_envelope_bytes > 0 ? (size_t)cfg->max_envelope_bytes : 0);
	hermes_console_sigint = hermes_console_sigend = 0;
	int status = c.interactive ? run_interactive(&c) : run_piped(&c);
	if (c.output_lost && status < 1)
		status = 1;
	hermes_entry_free(&c.entry);
	return status;
}
