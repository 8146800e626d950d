/* rpc/log.c: leveled logging to stderr, one write(2) per line so threads never interleave. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "rpc/log.h"

static hermes_log_level_t log_level = HERMES_LOG_WARN;
static void (*log_hook)(void *ctx, hermes_log_level_t level, const char *message);
static void *log_hook_ctx;

void hermes_log_set_hook(void (*hook)(void *ctx, hermes_log_level_t level, const char *message),
                         void *ctx)
{
	log_hook = hook;
	log_hook_ctx = ctx;
}

void hermes_log_set_level(hermes_log_level_t level)
{
	log_level = level;
}

bool hermes_log_enabled(hermes_log_level_t level)
{
	return level <= log_level;
}

void hermes_log(hermes_log_level_t level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	bool hooked = log_hook && level <= HERMES_LOG_WARN;
	if (!hermes_log_enabled(level) && !hooked)
		return;
	char line[2048];
	int n = snprintf(line, sizeof line, "hermes serve: %s: ", names[level]);
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	if (hooked) {
		line[len] = '\0';
		log_hook(log_hook_ctx, level, line + n);
	}
	if (!hermes_log_enabled(level))
		return;
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
