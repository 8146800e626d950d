/* core/executor.c: the registry (verb name → handler, case-insensitive, one handler per verb) and
 * the executor that decodes an envelope, runs its verb and encodes the result. */
#include "config.h"

#include <fnmatch.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/decode.h"
#include "core/document.h"
#include "core/encode.h"
#include "core/executor.h"
#include "core/json.h"
#include "core/utf8.h"
#include "core/verb.h"

/* State that changes between calls, which executors of one server may share: freed with the last
 * of them. */
struct shared_state {
	atomic_int refs;
	void *state;
	void (*free)(void *);
};

static void state_release(struct shared_state *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
		if (s->free)
			s->free(s->state);
		free(s);
	}
}

struct hermes_executor {
	hermes_config_t config;
	char *root;
	void *host;
	void (*host_free)(void *);
	struct shared_state *state;             /* NULL: none */
	hermes_verb_fn handlers[HERMES_VERB_COUNT];     /* by table index; NULL: not registered */
	const hermes_verb_desc_t *sorted[HERMES_VERB_COUNT]; /* registered and allowed, by name */
	size_t count;
	char *allow, *deny;                             /* the config's lists, owned */
};

/* Does name match one of the comma-separated globs of list (case-insensitively)? */
static bool matches(const char *list, const char *name)
{
	char glob[256];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n > 0 && n < sizeof glob) {
			memcpy(glob, p, n);
			glob[n] = '\0';
			if (fnmatch(glob, name, FNM_CASEFOLD) == 0)
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

bool hermes_config_allows(const hermes_config_t *config, const hermes_verb_desc_t *desc)
{
	if (config->read_only && !(desc->traits & HERMES_TRAIT_READ_ONLY))
		return false;
	if (config->allow && !matches(config->allow, desc->name))
		return false;
	return !(config->deny && matches(config->deny, desc->name));
}

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
	ex->allow = config && config->allow ? strdup(config->allow) : NULL;
	ex->deny = config && config->deny ? strdup(config->deny) : NULL;
	if ((config && config->allow && !ex->allow) || (config && config->deny && !ex->deny)) {
		free(ex->allow);
		free(ex->deny);
		free(ex->root);
		free(ex);
		return NULL;
	}
	ex->config.allow = ex->allow;
	ex->config.deny = ex->deny;
	if (ex->config.max_read_bytes <= 0)
		ex->config.max_read_bytes = HERMES_DEFAULT_MAX_READ_BYTES;
	if (ex->config.proc_timeout_seconds <= 0)
		ex->config.proc_timeout_seconds = HERMES_DEFAULT_PROC_TIMEOUT;
	if (ex->config.proc_output_limit <= 0)
		ex->config.proc_output_limit = HERMES_DEFAULT_PROC_OUTPUT_LIMIT;
	if (ex->config.max_envelope_bytes <= 0)
		ex->config.max_envelope_bytes = HERMES_DEFAULT_MAX_ENVELOPE_BYTES;
	if (ex->config.runs_max_bytes <= 0)
		ex->config.runs_max_bytes = HERMES_DEFAULT_RUNS_MAX_BYTES;
	if (ex->config.max_processes == 0 || ex->config.max_processes < HERMES_NO_STARTED_PROGRAMS)
		ex->config.max_processes = HERMES_DEFAULT_MAX_PROCESSES;
	if (ex->config.max_watches <= 0)
		ex->config.max_watches = HERMES_DEFAULT_MAX_WATCHES;
	if (ex->config.max_watch_events <= 0)
		ex->config.max_watch_events = HERMES_DEFAULT_MAX_WATCH_EVENTS;
	ex->host = host;
	ex->host_free = host_free;
	return ex;
}

void hermes_executor_free(hermes_executor_t *ex)
{
	if (!ex)
		return;
	state_release(ex->state);
	if (ex->host_free)
		ex->host_free(ex->host);
	free(ex->allow);
	free(ex->deny);
	free(ex->root);
	free(ex);
}

int hermes_executor_set_state(hermes_executor_t *ex, void *state, void (*state_free)(void *))
{
	struct shared_state *s = malloc(sizeof *s);
	if (!s)
		return -1;
	atomic_init(&s->refs, 1);
	s->state = state;
	s->free = state_free;
	state_release(ex->state);
	ex->state = s;
	return 0;
}

void hermes_executor_share_state(hermes_executor_t *to, const hermes_executor_t *from)
{
	if (to == from || !from->state)
		return;
	atomic_fetch_add(&from->state->refs, 1);
	state_release(to->state);
	to->state = from->state;
}

const char *hermes_executor_root(const hermes_executor_t *ex)
{
	return ex->root;
}

void *hermes_executor_host(const hermes_executor_t *ex)
{
	return ex->host;
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
	if (!hermes_config_allows(&ex->config, desc))
		return 0; /* registered, but turned off: not listed, and refused with NotAllowed */
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

/* Where a result goes: built whole into *json, or handed to a sink in pieces. */
typedef struct out {
	char **json;
	hermes_result_sink_t sink;
	void *ctx;
	int sent; /* with a sink: 0, or what hermes_encode_result_to() returned */
} out_t;

/* Delivers a result built whole (NULL: memory ran out). */
static void deliver(out_t *o, char *json)
{
	if (!o->sink) {
		*o->json = json;
		return;
	}
	o->sent = !json ? -1 : o->sink(o->ctx, json, strlen(json)) ? 0 : -2;
	free(json);
}

/* Decoding failed: the error result, and the outcome for it. */
static hermes_outcome_t invalid(const hermes_error_t *e, unsigned flags, out_t *out,
                                hermes_error_t *err)
{
	deliver(out, hermes_error_result_json(e, flags));
	if (err && err != e)
		*err = *e;
	return HERMES_OUTCOME_INVALID;
}

/* Runs a registered verb on decoded arguments (which it frees). */
static hermes_outcome_t run(hermes_executor_t *ex, const hermes_verb_desc_t *desc, void *args,
                            unsigned flags, hermes_cancel_t *cancel, out_t *out,
                            hermes_error_t *err)
{
	if (!hermes_config_allows(&ex->config, desc)) {
		hermes_struct_free(desc->args, args);
		hermes_error_t e;
		hermes_error_set(&e, HERMES_E_NOT_ALLOWED, "%s is turned off here (%s)", desc->name,
		                 ex->config.read_only && !(desc->traits & HERMES_TRAIT_READ_ONLY)
		                 ? "read-only: only verbs that change nothing may run"
		                 : "it is not among the verbs allowed (--allow, --deny)");
		deliver(out, hermes_encode_failure(e.code, e.message, flags));
		if (err)
			*err = e;
		return HERMES_OUTCOME_FAILED;
	}
	/* With a sink, a handler may leave a big string to be read as it is written (stream). */
	hermes_string_stream_t stream = { NULL, { NULL, NULL, NULL, false } };
	hermes_call_t call = { &ex->config, ex->host, cancel, ex->state ? ex->state->state : NULL,
	                       out->sink ? &stream : NULL };
	void *result = hermes_struct_new(desc->result);
	if (!result) {
		hermes_struct_free(desc->args, args);
		deliver(out, hermes_encode_failure(HERMES_E_INTERNAL, "out of memory", flags));
		return HERMES_OUTCOME_FAILED;
	}
	ex->handlers[desc - hermes_verb_descs](&call, args, result);
	if (out->sink)
		out->sent = hermes_encode_result_to(desc->result, result, flags, &stream, out->sink,
		                                    out->ctx);
	else
		*out->json = hermes_encode_result(desc->result, result, flags);
	if (stream.source.release)
		stream.source.release(stream.source.ctx);
	/* read after writing: a streamed string may fail the result on the way */
	const hermes_result_common_t *common = result;
	bool ok = common->succeeded;
	if (!ok && err) /* the front ends act on the code (Cancelled) without re-reading the JSON */
		hermes_error_set(err, common->error_code, "%s",
		                 common->error_message ? common->error_message : "");
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

/* Checks an envelope's size against the limit: true if it fits, else false with e filled. */
static bool within_limit(const hermes_executor_t *ex, size_t len, hermes_error_t *e)
{
	if ((int64_t)len <= ex->config.max_envelope_bytes)
		return true;
	hermes_error_set(e, HERMES_E_INVALID_ENVELOPE,
	                 "envelope is %zu bytes, over the limit of %lld bytes", len,
	                 (long long)ex->config.max_envelope_bytes);
	return false;
}

/* The name of a JSON value's type, for "expected String, got ...". */
static const char *type_word(const hermes_json_t *v)
{
	switch (v->type) {
	case HERMES_JSON_NUMBER: return "a number";
	case HERMES_JSON_TRUE:
	case HERMES_JSON_FALSE: return "a boolean";
	case HERMES_JSON_NULL: return "null";
	case HERMES_JSON_ARRAY: return "array";
	default: return "object";
	}
}

/* Finds the verb and arguments of an envelope object; 0, or -1 with e filled. */
static int split_envelope(const hermes_json_t *json, const char *text, const hermes_json_t **verb,
                          const hermes_json_t **arguments, hermes_error_t *e)
{
	const hermes_json_t *bad = json;
	if (json->type != HERMES_JSON_OBJECT) {
		hermes_error_set(e, HERMES_E_INVALID_ENVELOPE,
		                 "an envelope must be an object with \"verb\" and \"arguments\"");
		goto fail;
	}
	*verb = *arguments = NULL;
	for (const hermes_json_t *m = json->child; m; m = m->next) {
		bad = m;
		const hermes_json_t **slot = strcmp(m->key, "verb") == 0        ? verb
		                             : strcmp(m->key, "arguments") == 0 ? arguments
		                                                                : NULL;
		if (!slot || m->key_len != strlen(m->key)) {
			hermes_error_set(e, HERMES_E_INVALID_ENVELOPE,
			                 "unknown key '%s' in envelope (expected: verb, arguments)", m->key);
			snprintf(e->field, sizeof e->field, "%s", m->key);
			goto fail;
		}
		if (*slot) {
			hermes_error_set(e, HERMES_E_INVALID_ENVELOPE, "duplicate key '%s' in envelope",
			                 m->key);
			snprintf(e->field, sizeof e->field, "%s", m->key);
			goto fail;
		}
		*slot = m;
	}
	bad = *verb ? *verb : json;
	if (!*verb) {
		hermes_error_set(e, HERMES_E_INVALID_ENVELOPE, "missing \"verb\" in envelope");
	} else if ((*verb)->type != HERMES_JSON_STRING) {
		hermes_error_set(e, HERMES_E_INVALID_ENVELOPE, "verb: expected String, got %s",
		                 type_word(*verb));
	} else if (!hermes_json_is_c_string(*verb)) {
		hermes_error_set(e, HERMES_E_INVALID_ENVELOPE,
		                 "verb: a NUL character (\\u0000) is not allowed in a verb name");
	} else {
		return 0;
	}
	snprintf(e->field, sizeof e->field, "verb");
fail:
	if (text)
		hermes_text_position(text, bad->start, &e->line, &e->column);
	return -1;
}

static hermes_outcome_t execute_json(hermes_executor_t *ex, const char *verb,
                                     const hermes_json_t *json, const char *text, unsigned flags,
                                     hermes_cancel_t *cancel, out_t *out, hermes_error_t *err)
{
	hermes_error_t e;
	const hermes_json_t *arguments = json;
	hermes_error_clear(&e);

	if (json && !within_limit(ex, json->end - json->start, &e))
		return invalid(&e, flags, out, err);
	if (!verb) {
		const hermes_json_t *v;
		if (split_envelope(json, text, &v, &arguments, &e))
			return invalid(&e, flags, out, err);
		verb = v->str;
	}
	const hermes_verb_desc_t *desc = lookup(ex, verb, &e);
	if (!desc)
		return invalid(&e, flags, out, err);
	void *args = hermes_decode_json_args(desc->args, arguments, text, desc->name,
	                                     json == arguments ? "" : "arguments.", &e);
	if (!args)
		return invalid(&e, flags, out, err);
	return run(ex, desc, args, flags, cancel, out, err);
}

static hermes_outcome_t execute(hermes_executor_t *ex, const char *text, size_t len, unsigned flags,
                                hermes_cancel_t *cancel, out_t *out, hermes_error_t *err)
{
	hermes_error_t e;
	memset(&e, 0, sizeof e);

	if (!within_limit(ex, len, &e))
		return invalid(&e, flags, out, err);
	if (hermes_detect_format(text, len) == HERMES_FORMAT_YAML) {
		size_t bad = hermes_utf8_validate(text, len);
		if (bad != len) {
			hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
			                 "input is not valid UTF-8 (byte 0x%02X)", (unsigned char)text[bad]);
			hermes_text_position(text, bad, &e.line, &e.column);
			return invalid(&e, flags, out, err);
		}
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

	/* Positions count from after a byte order mark, as a person sees the text. */
	size_t bom = hermes_bom_length(text, len);
	text += bom;
	len -= bom;
	hermes_json_doc_t *doc;
	size_t end;
	if (hermes_json_parse(text, len, HERMES_MAX_NESTING, &doc, &end, &e))
		return invalid(&e, flags, out, err);
	size_t rest = hermes_json_skip_ws(text, len, end);
	if (rest < len) {
		hermes_json_doc_free(doc);
		hermes_error_set(&e, HERMES_E_INVALID_ENVELOPE,
		                 "unexpected data after the envelope (one envelope per call)");
		hermes_text_position(text, rest, &e.line, &e.column);
		return invalid(&e, flags, out, err);
	}
	hermes_outcome_t outcome =
		execute_json(ex, NULL, hermes_json_root(doc), text, flags, cancel, out, err);
	hermes_json_doc_free(doc);
	return outcome;
}

hermes_outcome_t hermes_execute_json(hermes_executor_t *ex, const char *verb,
                                     const hermes_json_t *json, const char *text, unsigned flags,
                                     hermes_cancel_t *cancel, char **result_json,
                                     hermes_error_t *err)
{
	out_t out = { result_json, NULL, NULL, 0 };
	return execute_json(ex, verb, json, text, flags, cancel, &out, err);
}

hermes_outcome_t hermes_execute(hermes_executor_t *ex, const char *text, size_t len, unsigned flags,
                                hermes_cancel_t *cancel, char **result_json, hermes_error_t *err)
{
	out_t out = { result_json, NULL, NULL, 0 };
	return execute(ex, text, len, flags, cancel, &out, err);
}

hermes_outcome_t hermes_execute_json_to(hermes_executor_t *ex, const char *verb,
                                        const hermes_json_t *json, const char *text,
                                        unsigned flags, hermes_cancel_t *cancel,
                                        hermes_result_sink_t sink, void *ctx, int *sent,
                                        hermes_error_t *err)
{
	out_t out = { NULL, sink, ctx, 0 };
	hermes_outcome_t outcome = execute_json(ex, verb, json, text, flags, cancel, &out, err);
	*sent = out.sent;
	return outcome;
}

hermes_outcome_t hermes_execute_to(hermes_executor_t *ex, const char *text, size_t len,
                                   unsigned flags, hermes_cancel_t *cancel,
                                   hermes_result_sink_t sink, void *ctx, int *sent,
                                   hermes_error_t *err)
{
	out_t out = { NULL, sink, ctx, 0 };
	hermes_outcome_t outcome = execute(ex, text, len, flags, cancel, &out, err);
	*sent = out.sent;
	return outcome;
}
