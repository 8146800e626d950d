/* hermes/hermes.h: the public API of libhermes, the Hermes verb executor.
 *
 * An executor holds a workspace root and the table of verbs. Give it an envelope
 * ({"verb": ..., "arguments": {...}} as JSON, or the same as YAML) and it returns the verb's result
 * as a JSON object. The argument and result types are in <hermes/types.h>, generated from the
 * verb table (defs/verbs.def).
 *
 * Thread safety: any number of threads may call hermes_execute() on an executor at once. Its
 * settings are fixed at hermes_executor_new(); the only state it changes is its table of programs
 * started by proc.start (locked inside), which hermes_executor_free() stops.
 *
 * Processes: the first proc.run or proc.start makes the calling process a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so that a program that kills its supervisor is reparented to it and
 * can be ended; when that happens, the children of the process that are no run's are taken for
 * the program's escapees and killed once it ends (doc/DESIGN.md, "Processes"). A host that forks
 * children of its own and runs untrusted programs should run Hermes in a process of its own. */
#ifndef HERMES_HERMES_H
#define HERMES_HERMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hermes/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HERMES_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HERMES_PRINTF(f, a)
#endif

/* The details of a failure. Every fallible call takes an optional pointer to one and fills it on
 * failure; on success it is left untouched. Fixed-size so that filling it can never fail. */
typedef struct hermes_error {
	hermes_errcode_t code;  /* what kind of failure (HERMES_E_NONE if none) */
	int line;               /* 1-based line in the input it refers to, 0 if none */
	int column;             /* 1-based column, 0 if none */
	char field[256];        /* the offending field ("arguments.startLine"), "" if none */
	char message[4608];     /* a sentence that names what was wrong; always NUL-terminated */
} hermes_error_t;

/* How proc.run's programs are confined, beyond Hermes's own confinement of paths. With the
 * kernel's Landlock (Linux 5.13 or later): ON lets a program write only inside the workspace,
 * /tmp and /dev/null, /dev/tty (and read everywhere); STRICT also lets it read only the workspace,
 * /tmp and the system's directories (/usr, /lib*, /etc, /bin, /sbin, /dev, /proc). Where the
 * kernel lacks Landlock, ON runs programs unconfined and STRICT refuses to run them (NotAllowed). */
typedef enum hermes_sandbox {
	HERMES_SANDBOX_ON = 0,
	HERMES_SANDBOX_OFF,
	HERMES_SANDBOX_STRICT
} hermes_sandbox_t;

/* The environment of proc.run's programs: Hermes's own, or only PATH, HOME, LANG, LC_*, TERM and
 * TMPDIR of it. */
typedef enum hermes_proc_env {
	HERMES_PROC_ENV_INHERIT = 0,
	HERMES_PROC_ENV_MINIMAL
} hermes_proc_env_t;

/* Settings of an executor. Zero means "the default" for every member. */
typedef struct hermes_config {
	const char *root;            /* workspace root directory; NULL: the current directory */
	int64_t max_read_bytes;      /* fs.readFile limit; default 64 MiB */
	int32_t proc_timeout_seconds;/* proc.run default timeout; default 600 */
	int64_t proc_output_limit;   /* proc.run stdout+stderr limit; default 1 GiB */
	int64_t max_envelope_bytes;  /* largest envelope accepted; default 64 MiB */
	/* What an agent may do. Verbs turned off are not listed and fail with NotAllowed. */
	bool read_only;              /* only verbs with the read-only trait run */
	const char *allow;           /* comma-separated globs of verb names that may run ("fs.*");
	                                NULL: all */
	const char *deny;            /* comma-separated globs of verb names that may not ("proc.*") */
	hermes_sandbox_t sandbox;    /* how proc.run's programs are confined (default: on) */
	hermes_proc_env_t proc_env;  /* the environment they get (default: inherited) */
	int64_t runs_max_bytes;      /* the sizes of the finished runs' output files in .hermes/runs
	                                add up to no more than this (the newest run excepted);
	                                default 2 GiB */
	/* proc.start's programs running at once (default 16); past it proc.start fails with
	 * LimitReached. HERMES_NO_STARTED_PROGRAMS refuses proc.start (NotAllowed): for a front end
	 * that ends after one batch (hermes exec). Started programs belong to the executor and end
	 * with hermes_executor_free(), or with the process, however it ends. */
	int32_t max_processes;
	/* fs.watch's watches kept at once (default 16); past it fs.watch fails with LimitReached.
	 * They belong to the executor and end with it, like started programs. */
	int32_t max_watches;
	/* Changes kept per watch for fs.changes (default 10000); past it the oldest are dropped and
	 * a reader whose cursor is before them is told overflow. */
	int32_t max_watch_events;
	/* This Hermes's name among several behind one load balancer: [a-z0-9-], 1 to 63 characters.
	 * Every handle it mints (a started program's id) is "<instance>.<local id>", and a handle of
	 * another instance fails with WrongInstance naming it. NULL: the host's name. */
	const char *instance;
	/* Language servers for the code.* verbs that replace the built-in ones: entries separated by
	 * '\n', each "LANGUAGE=COMMAND [ARG...]" (LANGUAGE: c, cpp, python, javascript, typescript,
	 * go; arguments split at spaces). Read by hermes_executor_new() only. NULL: the built-in
	 * servers (clangd, pyright-langserver, typescript-language-server, gopls), if on PATH. */
	const char *lsp_servers;
} hermes_config_t;

#define HERMES_DEFAULT_MAX_READ_BYTES     (64LL * 1024 * 1024)
#define HERMES_DEFAULT_PROC_TIMEOUT       600
#define HERMES_DEFAULT_PROC_OUTPUT_LIMIT  (1024LL * 1024 * 1024)
#define HERMES_DEFAULT_MAX_ENVELOPE_BYTES (64LL * 1024 * 1024)
#define HERMES_DEFAULT_RUNS_MAX_BYTES     (2048LL * 1024 * 1024)
#define HERMES_DEFAULT_MAX_PROCESSES      16
#define HERMES_NO_STARTED_PROGRAMS        (-1)
#define HERMES_DEFAULT_MAX_WATCHES        16
#define HERMES_DEFAULT_MAX_WATCH_EVENTS   10000

/* How an execution ended; also the `hermes exec` exit status of a single envelope. */
typedef enum hermes_outcome {
	HERMES_OUTCOME_SUCCEEDED = 0, /* the verb ran and succeeded */
	HERMES_OUTCOME_FAILED = 1,    /* the verb ran (or was refused) and failed: succeeded=false */
	HERMES_OUTCOME_INVALID = 2    /* the envelope could not be decoded; no verb ran */
} hermes_outcome_t;

/* A cancellation token. hermes_cancel_request() is async-signal-safe and thread-safe; a running
 * proc.run watches hermes_cancel_fd() and ends its process group when it becomes readable. */
typedef struct hermes_cancel hermes_cancel_t;
hermes_cancel_t *hermes_cancel_new(void);          /* NULL if out of memory or descriptors */
void hermes_cancel_free(hermes_cancel_t *cancel);  /* NULL is fine */
void hermes_cancel_request(hermes_cancel_t *cancel);
bool hermes_cancel_requested(const hermes_cancel_t *cancel);
int hermes_cancel_fd(const hermes_cancel_t *cancel); /* readable once cancelled */

/* Progress of a running verb (for a host that shows it, like MCP's notifications/progress): set
 * on a call's token before the call. fn is called from the verb's thread, at most 10 times a
 * second, with progress strictly rising; total is 0 when unknown; message is a short sentence
 * ("copied 512 MiB of 1 GiB"). Verbs that report it: proc.run (seconds elapsed; the message is the
 * program's latest line of output), fs.copyFile (bytes), fs.deleteDirectory (entries removed). */
typedef void (*hermes_progress_fn)(void *ctx, double progress, double total, const char *message);
void hermes_cancel_set_progress(hermes_cancel_t *cancel, hermes_progress_fn fn, void *ctx);

typedef struct hermes_executor hermes_executor_t;

/* Creates an executor with every built-in verb, confined to config->root (which must be an
 * existing directory). On success *out owns a new executor (free with hermes_executor_free) and 0
 * is returned; on failure -1 is returned, *out is untouched and err (if not NULL) says why. */
int hermes_executor_new(const hermes_config_t *config, hermes_executor_t **out, hermes_error_t *err);
void hermes_executor_free(hermes_executor_t *executor); /* NULL is fine */

/* The absolute, resolved workspace root of an executor. Owned by the executor. */
const char *hermes_executor_root(const hermes_executor_t *executor);

#define HERMES_JSON_PRETTY 1u  /* indent the result JSON by two spaces per level */

/* Executes one envelope: text[0..len) holds exactly one JSON or YAML document (JSON if its first
 * non-blank character is '{'). cancel may be NULL.
 *
 * *result_json always receives a malloc'd, NUL-terminated JSON object (free with free()): the
 * verb's result, or for an envelope that could not be decoded {"succeeded":false,...} with
 * errorCode InvalidEnvelope, UnknownVerb or InvalidArguments. In that last case err (if not NULL)
 * also gets the details, including the line and field where known. When the verb ran and failed
 * (HERMES_OUTCOME_FAILED), err gets the result's errorCode and errorMessage. Only if memory runs
 * out is *result_json set to NULL. */
hermes_outcome_t hermes_execute(hermes_executor_t *executor, const char *text, size_t len,
                                unsigned flags, hermes_cancel_t *cancel, char **result_json,
                                hermes_error_t *err);

/* The stable name of an error code ("NotFound"), or NULL for HERMES_E_NONE or an unknown value. */
const char *hermes_errcode_name(hermes_errcode_t code);

/* The version of libhermes ("0.1.0"). */
const char *hermes_version(void);

#ifdef __cplusplus
}
#endif
#endif /* HERMES_HERMES_H */
