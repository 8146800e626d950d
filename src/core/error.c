/* core/error.c: filling error structs and failed results; error code names. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/desc.h"
#include "core/verb.h"

void hermes_error_set(hermes_error_t *err, hermes_errcode_t code, const char *fmt, ...)
{
	if (!err)
		return;
	err->code = code;
	err->line = 0;
	err->column = 0;
	err->field[0] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
}

void hermes_result_fail(void *result, hermes_errcode_t code, const char *fmt, ...)
{
	hermes_result_common_t *common = result;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	free(common->error_message);
	common->succeeded = false;
	common->error_code = code;
	common->error_message = msg; /* NULL if out of memory: the encoder prints the code's text */
}

const char *hermes_errcode_name(hermes_errcode_t code)
{
	if ((int)code <= 0 || code >= HERMES_E__COUNT)
		return NULL;
	return hermes_errcode_names[code];
}

const char *hermes_version(void)
{
	return PACKAGE_VERSION;
}
