/* cli/console_edit.c: libedit behind the console on a terminal: prompt, history (one entry per
 * envelope, saved after each), completion of verb names and :commands, and a character reader
 * that gives up when Ctrl-C or SIGTERM arrives, so the console regains control. libedit is
 * loaded here, when first needed (console_libedit.h); where it cannot be, the console reads plain
 * lines (console_plain.c) and says so once. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "cli/console_edit.h"
#include "cli/console_libedit.h"
#include "cli/console_plain.h"
#include "cli/console_signal.h"
#include "core/executor.h"

#define HISTORY_SIZE 1000
/* Larger envelopes (a pasted file) run but are not remembered: the history file is rewritten
 * after every entry and would grow without bound. */
#define HISTORY_MAX_ENTRY (64 * 1024)

struct hermes_editor {
	hermes_plain_editor_t *plain; /* libedit could not be loaded: plain lines */
	EditLine *el;
	History *hist;
	FILE *in, *out, *err;
	int in_fd, out_fd;
	const hermes_executor_t *ex;
	char *history_path;
	const char *prompt;
	bool commands;     /* a :command may be typed now */
	char *line;        /* the last line read */
	size_t line_cap;
};

static const char *const command_names[] = { "help", "verbs", "schema", "root", "quit" };
#define NCOMMANDS (sizeof command_names / sizeof command_names[0])

static char *prompt_fn(EditLine *el)
{
	hermes_editor_t *ed = NULL;
	el_get(el, EL_CLIENTDATA, &ed);
	return (char *)(ed && ed->prompt ? ed->prompt : "");
}

/* Reads one character, returning -1 (errno EINTR) as soon as a signal the console must act on
 * arrives; a window change or Ctrl-Z is dealt with here and reading goes on. */
static int getc_fn(EditLine *el, wchar_t *wc)
{
	hermes_editor_t *ed = NULL;
	el_get(el, EL_CLIENTDATA, &ed);
	mbstate_t state;
	memset(&state, 0, sizeof state);
	for (;;) {
		if (hermes_console_sigint || hermes_console_sigend) {
			errno = EINTR;
			return -1;
		}
		if (hermes_console_sigwinch) {
			hermes_console_sigwinch = 0;
			el_resize(el);
			el_set(el, EL_REFRESH);
		}
		if (hermes_console_sigtstp) {
			/* Give the terminal back to the shell while stopped, take it again after. */
			hermes_console_sigtstp = 0;
			el_set(el, EL_PREP_TERM, 0);
			hermes_console_signals(HERMES_SIGMODE_EXECUTE, true); /* SIGTSTP default */
			raise(SIGTSTP);
			hermes_console_signals(HERMES_SIGMODE_READ, true);
			el_set(el, EL_PREP_TERM, 1);
			el_resize(el);
			el_set(el, EL_REFRESH);
		}
		int w = hermes_console_wait_input(ed->in_fd, true);
		if (w == 0)
			continue; /* a signal: its flag is dealt with above */
		if (w < 0)
			return -1;
		char c;
		ssize_t n = read(ed->in_fd, &c, 1);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		size_t k = mbrtowc(wc, &c, 1, &state);
		if (k == (size_t)-2)
			continue; /* more bytes of this character to come */
		if (k == (size_t)-1) {
			/* Not valid in this locale: pass the byte on rather than drop what was typed. */
			*wc = (wchar_t)(unsigned char)c;
			memset(&state, 0, sizeof state);
		}
		return 1;
	}
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* Does the text [start, p) end with a verb key and its separator: `verb: `, `"verb": "`,
 * `verb: '` ...? *quote gets the opening quote of the value, or 0. */
static bool after_verb_key(const char *start, const char *p, char *quote)
{
	*quote = 0;
	if (p > start && (p[-1] == '"' || p[-1] == '\'')) {
		*quote = p[-1];
		p--;
	}
	while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (p == start || p[-1] != ':')
		return false;
	p--;
	while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (p > start && (p[-1] == '"' || p[-1] == '\''))
		p--;
	if (p - start < 4 || strncmp(p - 4, "verb", 4) != 0)
		return false;
	p -= 4;
	return p == start || !is_word(p[-1]);
}

/* Prints the candidates under the line being edited, in columns. */
static void list_candidates(hermes_editor_t *ed, const char *prefix, const char **names, size_t n)
{
	size_t width = 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) > width)
			width = strlen(names[i]);
	width += strlen(prefix) + 2;
	size_t per_line = width < 80 ? 80 / width : 1;
	fputc('\n', ed->out);
	for (size_t i = 0; i < n; i++) {
		fprintf(ed->out, "%s%-*s", prefix, (int)(width - strlen(prefix)), names[i]);
		if ((i + 1) % per_line == 0 || i + 1 == n)
			fputc('\n', ed->out);
	}
	fflush(ed->out);
}

static unsigned char complete_fn(EditLine *el, int ch)
{
	(void)ch;
	hermes_editor_t *ed = NULL;
	el_get(el, EL_CLIENTDATA, &ed);
	const LineInfo *li = el_line(el);
	const char *start = li->buffer, *cursor = li->cursor;
	for (const char *p = start; p < cursor; p++) /* recalled entries hold several lines */
		if (*p == '\n')
			start = p + 1;
	const char *word = cursor;
	while (word > start && is_word(word[-1]))
		word--;
	size_t wlen = (size_t)(cursor - word);

	const char *lead = start;
	while (lead < word && (*lead == ' ' || *lead == '\t'))
		lead++;
	const char *names[256];
	size_t n = 0;
	char quote = 0;
	const char *prefix = "";
	bool is_command = false;
	bool command_line = ed->commands && start == li->buffer; /* first line at the main prompt */
	if (lead + 1 == word && *lead == ':' && command_line) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			names[n++] = command_names[i];
		prefix = ":";
		is_command = true;
	} else if ((command_line && (size_t)(word - lead) >= 8 && strncmp(lead, ":schema", 7) == 0 &&
	            (lead[7] == ' ' || lead[7] == '\t')) ||
	           after_verb_key(start, word, &quote)) {
		size_t count = hermes_executor_verb_count(ed->ex);
		for (size_t i = 0; i < count && n < sizeof names / sizeof names[0]; i++)
			names[n++] = hermes_executor_verb_at(ed->ex, i)->name;
	} else {
		return CC_ERROR;
	}

	const char *match[256];
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (strncasecmp(names[i], word, wlen) == 0)
			match[m++] = names[i];
	if (m == 0)
		return CC_ERROR;
	/* The longest common prefix of the matches (verb names match case-insensitively, the
	 * completion uses their spelling in the table). */
	size_t common = strlen(match[0]);
	for (size_t i = 1; i < m; i++) {
		size_t k = 0;
		while (k < common && match[i][k] && match[i][k] == match[0][k])
			k++;
		common = k;
	}
	if (m == 1) {
		char buf[300];
		const char *tail = "";
		if (quote && *cursor != quote)
			tail = quote == '"' ? "\"" : "'";
		else if (is_command && strcmp(match[0], "schema") == 0)
			tail = " ";
		snprintf(buf, sizeof buf, "%s%s", match[0], tail);
		el_deletestr(el, (int)wlen);
		el_insertstr(el, buf);
		return CC_REFRESH;
	}
	if (common > wlen || (common == wlen && strncmp(match[0], word, wlen) != 0)) {
		char buf[300];
		snprintf(buf, sizeof buf, "%.*s", (int)common, match[0]);
		el_deletestr(el, (int)wlen);
		el_insertstr(el, buf);
		return CC_REFRESH;
	}
	list_candidates(ed, prefix, match, m);
	return CC_REDISPLAY;
}

char *hermes_editor_history_path(void)
{
	const char *home = getenv("HOME");
	const char *state = getenv("XDG_STATE_HOME");
	char dir[PATH_MAX];
	int n;
	/* The XDG spec says relative values are invalid and must be ignored. */
	if (state && state[0] == '/')
		n = snprintf(dir, sizeof dir, "%s/hermes", state);
	else if (home && home[0])
		n = snprintf(dir, sizeof dir, "%s/.local/state/hermes", home);
	else
		return NULL;
	if (n < 0 || (size_t)n >= sizeof dir)
		return NULL;
	/* mkdir -p with private permissions: history may hold file contents. */
	bool made = true;
	for (char *p = dir + 1; made; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			*p = '\0';
			if (mkdir(dir, 0700) < 0 && errno != EEXIST)
				made = false;
			*p = saved;
			if (saved == '\0')
				break;
		}
	}
	struct stat st;
	char path[PATH_MAX + 16];
	if (made && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(path, sizeof path, "%s/history", dir);
	else if (home && home[0])
		snprintf(path, sizeof path, "%s/.hermes_history", home);
	else
		return NULL;
	return strdup(path);
}

hermes_editor_t *hermes_editor_new(int in_fd, int out_fd, int err_fd, const hermes_executor_t *ex,
                                   const char *history_path)
{
	hermes_editor_t *ed = calloc(1, sizeof *ed);
	if (!ed)
		return NULL;
	char why[300];
	if (!hermes_libedit_load(why, sizeof why)) {
		static bool told;
		if (!told) {
			told = true;
			dprintf(err_fd, "hermes: no line editing, history or completion (%s)\n", why);
		}
		if (!(ed->plain = hermes_plain_editor_new(in_fd, out_fd))) {
			free(ed);
			return NULL;
		}
		return ed;
	}
	ed->in_fd = in_fd;
	ed->out_fd = out_fd;
	ed->ex = ex;
	/* libedit wants stdio streams; give it its own so closing them leaves our descriptors. */
	int fds[3] = { dup(in_fd), dup(out_fd), dup(err_fd) };
	if (fds[0] >= 0)
		ed->in = fdopen(fds[0], "r");
	if (fds[1] >= 0)
		ed->out = fdopen(fds[1], "w");
	if (fds[2] >= 0)
		ed->err = fdopen(fds[2], "w");
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && !(i == 0 ? ed->in : i == 1 ? ed->out : ed->err))
			close(fds[i]);
	if (!ed->in || !ed->out || !ed->err)
		goto fail;
	ed->el = el_init_fd("hermes", ed->in, ed->out, ed->err, in_fd, out_fd, err_fd);
	ed->hist = history_init();
	if (!ed->el || !ed->hist)
		goto fail;
	HistEvent ev;
	history(ed->hist, &ev, H_SETSIZE, HISTORY_SIZE);
	history(ed->hist, &ev, H_SETUNIQUE, 1);
	if (history_path) {
		ed->history_path = strdup(history_path);
		history(ed->hist, &ev, H_LOAD, history_path); /* a missing file is an empty history */
	}
	el_set(ed->el, EL_CLIENTDATA, ed);
	el_set(ed->el, EL_EDITOR, "emacs");
	el_set(ed->el, EL_PROMPT, prompt_fn);
	el_set(ed->el, EL_HIST, history, ed->hist);
	el_set(ed->el, EL_GETCFN, getc_fn);
	/* The wide form: libedit keeps these pointers (its narrow EL_ADDFN leaks two copies). */
	el_wset(ed->el, EL_ADDFN, L"hermes-complete", L"Complete a verb name or a :command", complete_fn);
	el_set(ed->el, EL_BIND, "^I", "hermes-complete", NULL);
	el_source(ed->el, NULL); /* the user's ~/.editrc, as every libedit program does */
	return ed;
fail:
	hermes_editor_free(ed);
	return NULL;
}

void hermes_editor_free(hermes_editor_t *ed)
{
	if (!ed)
		return;
	hermes_plain_editor_free(ed->plain);
	if (ed->el)
		el_end(ed->el);
	if (ed->hist)
		history_end(ed->hist);
	if (ed->in)
		fclose(ed->in);
	if (ed->out)
		fclose(ed->out);
	if (ed->err)
		fclose(ed->err);
	free(ed->history_path);
	free(ed->line);
	free(ed);
}

int hermes_editor_read(hermes_editor_t *ed, const char *prompt, bool commands, const char **text,
                       size_t *len)
{
	if (ed->plain)
		return hermes_plain_editor_read(ed->plain, prompt, text, len);
	ed->prompt = prompt;
	ed->commands = commands;
	int count = 0;
	const char *s = el_gets(ed->el, &count);
	if (!s || count <= 0) {
		if (hermes_console_sigint || hermes_console_sigend)
			return HERMES_EDITOR_INTERRUPTED;
		return count < 0 ? HERMES_EDITOR_ERROR : HERMES_EDITOR_EOF;
	}
	/* Copy: libedit's buffer changes under us on the next call, and we may need a '\n'. */
	size_t n = strlen(s);
	if (n + 2 > ed->line_cap) {
		char *p = realloc(ed->line, n + 2);
		if (!p)
			return HERMES_EDITOR_ERROR;
		ed->line = p;
		ed->line_cap = n + 2;
	}
	memcpy(ed->line, s, n);
	if (n == 0 || ed->line[n - 1] != '\n')
		ed->line[n++] = '\n';
	ed->line[n] = '\0';
	*text = ed->line;
	*len = n;
	return HERMES_EDITOR_LINE;
}

void hermes_editor_remember(hermes_editor_t *ed, const char *entry, size_t len)
{
	if (ed->plain)
		return; /* no history without libedit */
	while (len > 0 && (entry[len - 1] == '\n' || entry[len - 1] == '\r'))
		len--;
	if (len == 0 || len > HISTORY_MAX_ENTRY)
		return;
	char *copy = strndup(entry, len);
	if (!copy)
		return;
	HistEvent ev;
	history(ed->hist, &ev, H_ENTER, copy);
	free(copy);
	if (!ed->history_path)
		return;
	/* Write a new file and rename it over the old one: a crash never truncates the history. */
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", ed->history_path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	int rc = history(ed->hist, &ev, H_SAVE_FP, f);
	if (fclose(f) != 0 || rc < 0 || rename(tmp, ed->history_path) < 0)
		unlink(tmp);
}
