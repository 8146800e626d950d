/* core/executor.c: the registry (verb name → handler, case-insensitive, one handler per verb) and
 * the executor that decodes an envelope, runs its verb and encodes the result. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/decode.h"
#include "core/document.h"
#include "core/encode.h"
#include "core/executor.h"
#include "core/json_scan.h"
#include "core/utf8.h"
#include "core/verb.h"

struct hermes_executor {
	hermes_config_t config;
	char *root;
	void *host;
	void (*host_free)(void *);
	hermes_verb_fn handlers[HERMES_VERB_COUNT];     /* by table index; NULL: not registered */
	const hermes_verb_desc_t *sorted[HERMES_VERB_COUNT]; /* registered verbs, by name */
	size_t count;
};

hermes_executor_t *hermes_executor_create(const hermes_config_t *config, const char *resolved_root,
                                          void *host, void (*host_free)(void *))
{
	hermes_executor_t *ex = calloc(1, sizeof *ex);
	if (!ex)
		return NULL;
	ex->root = strdup(resolved_root ? resolved_root : ".");
	if (!ex->root) {
		free(ex);
		return NULL;
	}
	if (config)
		ex->config = *config;
	ex->config.root = ex->root;
	if (ex->config.max_read_bytes <= 0)
		ex->config.max_read_bytes = HERMES_DEFAULT_MAX_READ_BYTES;
	if (ex->config.proc_timeout_seconds <= 0)
		ex->config.proc_timeout_seconds = HERMES_DEFAULT_PROC_TIMEOUT;
	if (ex->config.proc_output_limit <= 0)
		ex->config.proc_output_limit = HERMES_DEFAULT_PROC_OUTPUT_LIMIT;
	if (ex->config.max_envelope_bytes <= 0)
		ex->config.max_envelope_bytes = HERMES_DEFAULT_MAX_ENVELOPE_BYTES;
	ex->host = host;
	ex->host_free = host_free;
	return ex;
}

void hermes_executor_free(hermes_executor_t *ex)
{
	if (!ex)
		return;
	if (ex->host_free)
		ex->host_free(ex->host);
	free(ex->root);
	free(ex);
}

const char *hermes_executor_root(const hermes_executor_t *ex)
{
	return ex->root;
}

const hermes_config_t *hermes_executor_config(const hermes_executor_t *ex)
{
	return &ex->config;
}

int hermes_executor_register(hermes_executor_t *ex, const char *verb, hermes_verb_fn fn,
                             hermes_error_t *err)
{
	const hermes_verb_desc_t *desc = hermes_verb_desc_find(verb);
	if (!desc) {
		hermes_error_set(err, HERMES_E_UNKNOWN_VERB, "cannot register '%s': not in the verb table",
		                 verb);
		return -1;
	}
	size_t index = (size_t)(desc - hermes_verb_descs);
	if (ex->handlers[index]) {
		hermes_error_set(err, HERMES_E_INTERNAL, "verb '%s' is already registered", desc->name);
		return -1;
	}
	ex->handlers[index] = fn;
	size_t at = ex->count++;
	while (at > 0 && strcasecmp(ex->sorted[at - 1]->name, desc->name) > 0) {
		ex->sorted[at] = ex->sorted[at - 1];
		at--;
	}
	ex->sorted[at] = desc;
	return 0;
}

size_t hermes_executor_verb_count(const hermes_executor_t *ex)
{
	return ex->count;
}

const hermes_verb_desc_t *hermes_executor_verb_at(const hermes_executor_t *ex, size_t index)
{
	return index < ex->count ? ex->sorted[index] : NULL;
}

const hermes_verb_desc_t *hermes_executor_find(const hermes_executor_t *ex, const char *name)
{
	const hermes_verb_desc_t *desc = hermes_verb_desc_find(name);
	return desc && ex->handlers[desc - hermes_verb_descs] ? desc : NULL;
}

char *hermes_error_result_json(const hermes_error_t *err, unsigned flags)
{
	return hermes_encode_failure(err->code, err->message, flags);
}

/* Decoding failed: the error result, and the outcome for it. */
static hermes_outcome_t invalid(const hermes_error_t *e, unsigned flags, char **out,
                                hermes_error_t *err)
{
	*out = hermes_error_result_json(e, flags);
	if (err && err != e)
		*err = *e;
	return HERMES_OUTCOME_INVALID;
}

/* Runs a registered verb on decoded arguments (which it frees). */
static hermes_outcome_t run(hermes_executor_t *ex, const hermes_verb_desc_t *desc, void *args,
                            unsigned flags, hermes_cancel_t *cancel, char **out,
                            hermes_error_t *err)
{
	hermes_call_t call = { &ex->config, ex->host, cancel };
	void *result = hermes_struct_new(desc->result);
	if (!result) {
		hermes_struct_free(desc->args, args);
		*out = hermes_encode_failure(HERMES_E_INTERNAL, "out of memory", flags);
		return HERMES_OUTCOME_FAILED;
	}
	ex->handlers[desc - hermes_verb_descs](&call, args, result);
	const hermes_result_common_t *common = result;
	bool ok = common->succeeded;
	if (!ok && err) /* the front ends act on the code (Cancelled) without re-reading the JSON */
		hermes_error_set(err, common->error_code, "%s",
		                 common->error_message ? common->error_message : "");
	*out = hermes_encode_result(desc->result, result, flags);
	hermes_struct_free(desc->result, result);
	hermes_struct_free(desc->args, args);
	return ok ? HERMES_OUTCOME_SUCCEEDED : HERMES_OUTCOME_FAILED;
}

static const hermes_verb_desc_t *lookup(hermes_executor_t *ex, const char *name, hermes_error_t *e)
{
	const hermes_verb_desc_t *desc = hermes_verb_desc_find(name);
	if (desc && ex->handlers[desc - hermes_verb_descs])
		return desc;
	if (desc) {
		hermes_error_set(e, HERMES_E_UNKNOWN_VERB, "verb '%s' is not available in this executor",
		                 desc->name);
		snprintf(e->field, sizeof e->field, "verb");
	} else {
		hermes_decode_err_unknown_verb(e, name);
	}
	return NULL;
}

hermes_outcome_t hermes_execute_cjson(hermes_executor_t *ex, const char *verb, const cJSON *json,
                                      unsigned flags, hermes_cancel_t *cancel, char **out,
                                      hermes_error_t *err)
{
	hermes_error_t e;
	const cJSON *arguments = json;
	memset(&e, 0, sizeof e);

	if (!verb) {
		if (!cJSON_IsObject(json)) {
			hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
			                 "an envelope must be an object with \"verb\" and \"arguments\"");
			return invalid(&e, flags, out, err);
		}
		const cJSON *v = NULL;
		arguments = NULL;
		for (const cJSON *m = json->child; m; m = m->next) {
			const cJSON **slot = strcmp(m->string, "verb") == 0        ? &v
			                     : strcmp(m->string, "arguments") == 0 ? &arguments
			                                                           : NULL;
			if (!slot) {
				hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
				                 "unknown key '%s' in envelope (expected: verb, arguments)",
				                 m->string);
				snprintf(e.field, sizeof e.field, "%s", m->string);
				return invalid(&e, flags, out, err);
			}
			if (*slot) {
				hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE, "duplicate key '%s' in envelope",
				                 m->string);
				snprintf(e.field, sizeof e.field, "%s", m->string);
				return invalid(&e, flags, out, err);
			}
			*slot = m;
		}
		if (!v) {
			hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE, "missing \"verb\" in envelope");
			snprintf(e.field, sizeof e.field, "verb");
			return invalid(&e, flags, out, err);
		}
		if (!cJSON_IsString(v)) {
			hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE, "verb: expected String, got %s",
			                 cJSON_IsNumber(v) ? "a number" : cJSON_IsBool(v) ? "a boolean"
			                 : cJSON_IsNull(v) ? "null" : cJSON_IsArray(v) ? "array" : "object");
			snprintf(e.field, sizeof e.field, "verb");
			return invalid(&e, flags, out, err);
		}
		verb = v->valuestring;
	}
	const hermes_verb_desc_t *desc = lookup(ex, verb, &e);
	if (!desc)
		return invalid(&e, flags, out, err);
	void *args = hermes_decode_json_args(desc->args, arguments, desc->name,
	                                     json == arguments ? "" : "arguments.", &e);
	if (!args)
		return invalid(&e, flags, out, err);
	return run(ex, desc, args, flags, cancel, out, err);
}

hermes_outcome_t hermes_execute(hermes_executor_t *ex, const char *text, size_t len, unsigned flags,
                                hermes_cancel_t *cancel, char **out, hermes_error_t *err)
{
	hermes_error_t e;
	memset(&e, 0, sizeof e);

	if ((int64_t)len > ex->config.max_envelope_bytes) {
		hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
		                 "envelope is %zu bytes, over the limit of %lld bytes", len,
		                 (long long)ex->config.max_envelope_bytes);
		return invalid(&e, flags, out, err);
	}
	size_t bad = hermes_utf8_validate(text, len);
	if (bad != len) {
		hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
		                 "input is not valid UTF-8 (byte 0x%02X)", (unsigned char)text[bad]);
		hermes_text_position(text, bad, &e.line, &e.column);
		return invalid(&e, flags, out, err);
	}
	if (hermes_detect_format(text, len) == HERMES_FORMAT_YAML) {
		void *args = NULL;
		const hermes_verb_desc_t *desc = hermes_decode_yaml_envelope(text, len, &args, &e);
		if (desc && !lookup(ex, desc->name, &e)) {
			hermes_struct_free(desc->args, args);
			desc = NULL;
		}
		if (!desc)
			return invalid(&e, flags, out, err);
		return run(ex, desc, args, flags, cancel, out, err);
	}

	size_t start = (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0, end;
	if (hermes_json_scan(text + start, len - start, HERMES_JSON_REJECT_NUL, HERMES_MAX_NESTING,
	                     &end, &e)) {
		if (start)
			hermes_text_position(text, start + end, &e.line, &e.column);
		return invalid(&e, flags, out, err);
	}
	size_t rest = hermes_json_skip_ws(text, len, start + end);
	if (rest < len) {
		hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
		                 "unexpected data after the envelope (one envelope per call)");
		hermes_text_position(text, rest, &e.line, &e.column);
		return invalid(&e, flags, out, err);
	}
	const char *parse_end = NULL;
	cJSON *json = cJSON_ParseWithLengthOpts(text + start, end, &parse_end, 0);
	if (!json) {
		/* The scanner accepted it, so only memory (or cJSON's own nesting cap) can fail here. */
		hermes_error_set(&e, HERMES_E_INTERNAL, "could not build the JSON tree (out of memory?)");
		return invalid(&e, flags, out, err);
	}
	hermes_outcome_t outcome = hermes_execute_cjson(ex, NULL, json, flags, cancel, out, err);
	cJSON_Delete(json);
	return outcome;
}
