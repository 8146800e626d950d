/* lsp/pool.c: the known language servers and the running ones (pool.h). */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/verb.h"
#include "lsp/pool.h"
#include "proc/program.h"
#include "proc/tmpdir.h"

/* A file extension's language and the languageId a document of it is opened with. */
static const struct {
	const char *ext, *language, *language_id;
} extensions[] = {
	{"c", "c", "c"}, {"h", "c", "c"},
	{"cc", "cpp", "cpp"}, {"cpp", "cpp", "cpp"}, {"cxx", "cpp", "cpp"}, {"c++", "cpp", "cpp"},
	{"hh", "cpp", "cpp"}, {"hpp", "cpp", "cpp"}, {"hxx", "cpp", "cpp"},
	{"py", "python", "python"}, {"pyi", "python", "python"},
	{"ts", "typescript", "typescript"}, {"mts", "typescript", "typescript"},
	{"cts", "typescript", "typescript"}, {"tsx", "typescript", "typescriptreact"},
	{"js", "javascript", "javascript"}, {"mjs", "javascript", "javascript"},
	{"cjs", "javascript", "javascript"}, {"jsx", "javascript", "javascriptreact"},
	{"go", "go", "go"},
};

/* The built-in servers: languages they serve (comma-separated), command, how to install it. */
static const struct {
	const char *languages, *command, *install;
} builtin[] = {
	{"c,cpp", "clangd", "apt-get install clangd"},
	{"python", "pyright-langserver --stdio", "npm install -g pyright"},
	{"typescript,javascript", "typescript-language-server --stdio",
	 "npm install -g typescript-language-server typescript"},
	{"go", "gopls", "apt-get install gopls"},
};

#define MAX_KNOWN 32

typedef struct slot slot_t;
struct slot {
	hermes_lsp_client_t *client;
	char *root;                /* the workspace root it serves */
	char *tmpdir;              /* the server's own TMPDIR (proc/tmpdir.h), or NULL */
	int refs;
	slot_t *next;              /* retired slots: ended clients still referenced */
};

typedef struct server {
	char languages[128];
	char command[512];
	char install[160];
	char **argv;               /* split command */
	slot_t *active;            /* the current client, or NULL */
	int64_t restarts;
	int64_t last_used_ms;
	char last_error[256];      /* why its previous client ended, kept across a restart */
} server_t;

struct hermes_lsp_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t sweeper;
	bool sweeper_started, closing;
	hermes_config_t config;     /* a copy: its strings cleared, the state may outlive it */
	server_t servers[MAX_KNOWN];
	size_t nservers;
	slot_t *retired;
};

static char **split_command(const char *command)
{
	size_t n = 1;
	for (const char *p = command; *p; p++)
		n += *p == ' ';
	char **argv = calloc(n + 1, sizeof *argv);
	char *copy = strdup(command);
	if (!argv || !copy) {
		free(argv);
		free(copy);
		return NULL;
	}
	size_t k = 0;
	for (char *save = NULL, *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		argv[k++] = tok;
	if (k == 0) {
		free(copy);
		free(argv);
		return NULL;
	}
	return argv; /* argv[0] is the start of copy: freeing it frees every argument */
}

static bool serves(const server_t *s, const char *language)
{
	size_t n = strlen(language);
	for (const char *p = s->languages; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, language, n) == 0)
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

static bool add_server(hermes_lsp_pool_t *pool, const char *languages, const char *command,
                       const char *install)
{
	if (pool->nservers == MAX_KNOWN)
		return false;
	server_t *s = &pool->servers[pool->nservers];
	snprintf(s->languages, sizeof s->languages, "%s", languages);
	snprintf(s->command, sizeof s->command, "%s", command);
	snprintf(s->install, sizeof s->install, "%s", install);
	s->argv = split_command(command);
	if (!s->argv)
		return false;
	pool->nservers++;
	return true;
}

static void *sweeper_main(void *arg);

hermes_lsp_pool_t *hermes_lsp_pool_new(const hermes_config_t *config,
                                       const char *servers, const char **why)
{
	*why = "out of memory";
	hermes_lsp_pool_t *pool = calloc(1, sizeof *pool);
	if (!pool)
		return NULL;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pool->cond, &ca);
	pthread_condattr_destroy(&ca);
	pool->config = *config;
	pool->config.root = pool->config.allow = pool->config.deny = NULL;
	pool->config.lsp_servers = NULL;
	/* Servers given by option come first, so that they win over the built-in ones. */
	for (const char *p = servers; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char entry[600];
		if (len >= sizeof entry) {
			*why = "an --lsp-server entry is longer than 599 bytes";
			hermes_lsp_pool_free(pool);
			return NULL;
		}
		memcpy(entry, p, len);
		entry[len] = '\0';
		char *eq = strchr(entry, '=');
		bool known = false;
		if (eq) {
			*eq = '\0';
			for (size_t i = 0; i < sizeof extensions / sizeof *extensions; i++)
				known |= strcmp(extensions[i].language, entry) == 0;
		}
		if (!eq || !known || !eq[1] || eq[1] == ' ') {
			*why = "an --lsp-server entry is not LANGUAGE=COMMAND with LANGUAGE one of c, cpp, "
			       "python, javascript, typescript, go";
			hermes_lsp_pool_free(pool);
			return NULL;
		}
		if (!add_server(pool, entry, eq + 1, "the command given with --lsp-server")) {
			hermes_lsp_pool_free(pool);
			return NULL;
		}
		p = nl ? nl + 1 : p + len;
	}
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
		if (!add_server(pool, builtin[i].languages, builtin[i].command, builtin[i].install)) {
			hermes_lsp_pool_free(pool);
			return NULL;
		}
	}
	return pool;
}

/* Ends a slot's server, then removes its temporary directory: whatever the server left there,
 * stopped or killed, goes with it. */
static void slot_free(slot_t *slot)
{
	hermes_lsp_client_free(slot->client);
	hermes_tmpdir_remove(slot->tmpdir);
	free(slot->root);
	free(slot);
}

/* Frees the clients of a server (pool lock held, or no other thread left). */
static void drop_active(hermes_lsp_pool_t *pool, server_t *s)
{
	slot_t *slot = s->active;
	if (!slot)
		return;
	s->active = NULL;
	if (slot->refs == 0) {
		slot_free(slot);
	} else {
		slot->next = pool->retired;
		pool->retired = slot;
	}
}

/* Stops servers unused for HERMES_LSP_IDLE_SECONDS. */
static void *sweeper_main(void *arg)
{
	hermes_lsp_pool_t *pool = arg;
	pthread_mutex_lock(&pool->lock);
	while (!pool->closing) {
		int64_t now = hermes_lsp_now_ms();
		for (size_t i = 0; i < pool->nservers; i++) {
			server_t *s = &pool->servers[i];
			if (s->active && s->active->refs == 0 &&
			    now - s->last_used_ms > HERMES_LSP_IDLE_SECONDS * 1000LL)
				drop_active(pool, s);
		}
		int64_t until = now + 5000;
		struct timespec ts = {until / 1000, (until % 1000) * 1000000};
		pthread_cond_timedwait(&pool->cond, &pool->lock, &ts);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

void hermes_lsp_pool_free(hermes_lsp_pool_t *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->closing = true;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
	if (pool->sweeper_started)
		pthread_join(pool->sweeper, NULL);
	for (size_t i = 0; i < pool->nservers; i++) {
		server_t *s = &pool->servers[i];
		if (s->active)
			slot_free(s->active);
		if (s->argv)
			free(s->argv[0]);
		free(s->argv);
	}
	for (slot_t *r = pool->retired, *next; r; r = next) {
		next = r->next;
		slot_free(r);
	}
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->cond);
	free(pool);
}

const char *hermes_lsp_language_of(const hermes_lsp_pool_t *pool, const char *path,
                                   const char **language_id)
{
	(void)pool;
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');
	if (!dot || dot[1] == '\0')
		return NULL;
	for (size_t i = 0; i < sizeof extensions / sizeof *extensions; i++) {
		if (strcmp(extensions[i].ext, dot + 1) == 0) {
			if (language_id)
				*language_id = extensions[i].language_id;
			return extensions[i].language;
		}
	}
	return NULL;
}

static size_t running_count(const hermes_lsp_pool_t *pool)
{
	size_t n = 0;
	for (size_t i = 0; i < pool->nservers; i++)
		n += pool->servers[i].active != NULL;
	return n;
}

/* Starts s's server. Pool lock held (a second caller waits rather than starting another). */
static int start_server(hermes_lsp_pool_t *pool, server_t *s, const hermes_ws_t *ws,
                        const hermes_cancel_t *cancel, hermes_error_t *err)
{
	int exe_fd = -1;
	char resolved[PATH_MAX + 1];
	int rc = hermes_program_find(ws, s->argv[0], &exe_fd, resolved, sizeof resolved);
	if (rc < 0) {
		hermes_error_set(err, HERMES_E_UNAVAILABLE,
		                 "no language server for %s: '%s' is not on PATH (install it: %s; or name "
		                 "another with --lsp-server)", s->languages, s->argv[0], s->install);
		return -1;
	}
	slot_t *slot = calloc(1, sizeof *slot);
	char *tmp_env = NULL, **envp = NULL;
	if (slot && (slot->root = strdup(ws->root)) != NULL) {
		/* Without a directory of its own (a TMPDIR Hermes cannot write), it runs with the usual. */
		if (hermes_tmpdir_make(&slot->tmpdir) == 0 &&
		    asprintf(&tmp_env, "TMPDIR=%s", slot->tmpdir) < 0)
			tmp_env = NULL;
		envp = hermes_program_env(&pool->config, tmp_env ? &tmp_env : NULL, tmp_env ? 1 : 0);
	}
	if (!envp) {
		if (exe_fd >= 0)
			close(exe_fd);
		free(tmp_env);
		if (slot)
			slot_free(slot);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory starting %s", s->argv[0]);
		return -1;
	}
	hermes_spawn_t spec = {exe_fd, resolved, s->argv, envp, ws->root_fd, -1, -1, -1,
	                       (int)pool->config.sandbox, ws->root_fd, false};
	rc = hermes_lsp_client_start(&spec, ws->root, HERMES_LSP_START_MS, cancel, &slot->client, err);
	free(envp);
	free(tmp_env);
	if (exe_fd >= 0)
		close(exe_fd);
	if (rc < 0) {
		slot->client = NULL;
		slot_free(slot);
		return -1;
	}
	s->active = slot;
	return 0;
}

int hermes_lsp_pool_get(hermes_lsp_pool_t *pool, const hermes_ws_t *ws, const char *language,
                        const hermes_cancel_t *cancel, hermes_lsp_client_t **out,
                        hermes_error_t *err)
{
	pthread_mutex_lock(&pool->lock);
	server_t *s = NULL;
	for (size_t i = 0; i < pool->nservers && !s; i++)
		if (serves(&pool->servers[i], language))
			s = &pool->servers[i];
	int rc = 0;
	if (!s) {
		hermes_error_set(err, HERMES_E_UNAVAILABLE, "Hermes knows no language server for %s",
		                 language);
		rc = -1;
	} else {
		if (s->active && !hermes_lsp_client_alive(s->active->client)) {
			hermes_lsp_info_t *info = malloc(sizeof *info);
			/* Its output is closed: its reader learns how it ended in a moment. */
			hermes_lsp_client_wait_ended(s->active->client, 2000);
			if (info) {
				hermes_lsp_client_info(s->active->client, info);
				snprintf(s->last_error, sizeof s->last_error, "%s", info->last_error);
				free(info);
			}
			drop_active(pool, s); /* it crashed: the next call starts it again */
			s->restarts++;
		}
		/* The workspace changed (MCP roots): the server of the old one is stopped. */
		if (s->active && strcmp(s->active->root, ws->root) != 0)
			drop_active(pool, s);
		if (!s->active && running_count(pool) >= HERMES_LSP_MAX_SERVERS) {
			hermes_error_set(err, HERMES_E_LIMIT_REACHED,
			                 "%d language servers run already, as many as Hermes keeps",
			                 HERMES_LSP_MAX_SERVERS);
			rc = -1;
		} else if (!s->active) {
			rc = start_server(pool, s, ws, cancel, err);
			/* The idle sweeper starts with the first server: an executor that runs none has
			 * no thread of its own (a process that forks it, as a test does, can free it). */
			if (rc == 0 && !pool->sweeper_started)
				pool->sweeper_started =
					pthread_create(&pool->sweeper, NULL, sweeper_main, pool) == 0;
		}
	}
	if (rc == 0) {
		s->active->refs++;
		s->last_used_ms = hermes_lsp_now_ms();
		*out = s->active->client;
	}
	pthread_mutex_unlock(&pool->lock);
	return rc;
}

int hermes_lsp_pool_peek(hermes_lsp_pool_t *pool, const hermes_ws_t *ws, const char *language,
                         hermes_lsp_client_t **out)
{
	int rc = -1;
	pthread_mutex_lock(&pool->lock);
	for (size_t i = 0; i < pool->nservers && rc < 0; i++) {
		server_t *s = &pool->servers[i];
		if (!serves(s, language))
			continue;
		if (s->active && strcmp(s->active->root, ws->root) == 0 &&
		    hermes_lsp_client_alive(s->active->client)) {
			s->active->refs++;
			*out = s->active->client;
			rc = 0;
		}
		break; /* the first server of the language is the one hermes_lsp_pool_get uses */
	}
	pthread_mutex_unlock(&pool->lock);
	return rc;
}

void hermes_lsp_pool_release(hermes_lsp_pool_t *pool, hermes_lsp_client_t *client)
{
	pthread_mutex_lock(&pool->lock);
	for (size_t i = 0; i < pool->nservers; i++) {
		server_t *s = &pool->servers[i];
		if (s->active && s->active->client == client) {
			s->active->refs--;
			s->last_used_ms = hermes_lsp_now_ms();
			pthread_mutex_unlock(&pool->lock);
			return;
		}
	}
	for (slot_t **pp = &pool->retired; *pp; pp = &(*pp)->next) {
		slot_t *r = *pp;
		if (r->client == client) {
			if (--r->refs == 0) {
				*pp = r->next;
				pthread_mutex_unlock(&pool->lock);
				slot_free(r);
				return;
			}
			break;
		}
	}
	pthread_mutex_unlock(&pool->lock);
}

int hermes_lsp_pool_list(hermes_lsp_pool_t *pool, const hermes_ws_t *ws,
                         hermes_lsp_server_info_t **out, size_t *count)
{
	pthread_mutex_lock(&pool->lock);
	hermes_lsp_server_info_t *list = calloc(pool->nservers ? pool->nservers : 1, sizeof *list);
	if (!list) {
		pthread_mutex_unlock(&pool->lock);
		return -1;
	}
	for (size_t i = 0; i < pool->nservers; i++) {
		server_t *s = &pool->servers[i];
		hermes_lsp_server_info_t *e = &list[i];
		snprintf(e->name, sizeof e->name, "%s", s->argv[0]);
		snprintf(e->command, sizeof e->command, "%s", s->command);
		snprintf(e->languages, sizeof e->languages, "%s", s->languages);
		snprintf(e->install, sizeof e->install, "%s", s->install);
		int fd = -1;
		char resolved[PATH_MAX + 1] = "";
		if (hermes_program_find(ws, s->argv[0], &fd, resolved, sizeof resolved) == 0)
			snprintf(e->found, sizeof e->found, "%s", fd >= 0 ? s->argv[0] : resolved);
		if (fd >= 0)
			close(fd);
		e->restarts = s->restarts;
		if (s->active) {
			e->started = true;
			snprintf(e->root, sizeof e->root, "%s", s->active->root);
			hermes_lsp_client_info(s->active->client, &e->info);
		}
		if (!e->info.last_error[0])
			snprintf(e->info.last_error, sizeof e->info.last_error, "%s", s->last_error);
	}
	*count = pool->nservers;
	*out = list;
	pthread_mutex_unlock(&pool->lock);
	return 0;
}
