/* protocol/hermes/hermes_introspect.c: the Hermes protocol's methods that describe the server's
 * verbs: hermes/verbs (names and descriptions) and hermes/schema (the IDL text `hermes schema`
 * prints). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/decode.h"
#include "core/executor.h"
#include "core/idl.h"
#include "rpc/jsonrpc.h"
#include "protocol/hermes/hermes_methods.h"
#include "rpc/state.h"

void hermes_method_verbs(server_t *srv, call_t *c)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"verbs\":[");
	size_t n = hermes_executor_verb_count(srv->ex);
	for (size_t i = 0; i < n; i++) {
		const hermes_verb_desc_t *d = hermes_executor_verb_at(srv->ex, i);
		hermes_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
		hermes_buf_json_string(&b, d->name, strlen(d->name));
		hermes_buf_puts(&b, ",\"description\":");
		hermes_buf_json_string(&b, d->description, strlen(d->description));
		hermes_buf_puts(&b, "}");
	}
	hermes_buf_puts(&b, "]}");
	hermes_reply_result(c, hermes_buf_finish(&b));
}

void hermes_method_schema(server_t *srv, call_t *c)
{
	const hermes_json_t *p = c->m.params;
	if (p && p->type != HERMES_JSON_OBJECT) {
		hermes_reply_invalid_params(c, "params", "InvalidArguments",
		                            "hermes/schema params must be an object: {\"verb\": name} or {}");
		return;
	}
	const hermes_json_t *v = hermes_json_member(p, "verb");
	hermes_buf_t b = HERMES_BUF_INIT;
	if (v && v->type != HERMES_JSON_NULL) {
		if (!hermes_json_is_c_string(v)) {
			hermes_reply_invalid_params(c, "verb", "InvalidArguments",
			                            "verb must be a string naming a verb (without NUL characters)");
			return;
		}
		const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, v->str);
		if (d == NULL) {
			hermes_error_t err; /* the same sentence as `hermes schema` and hermes exec */
			hermes_decode_err_unknown_verb(&err, v->str);
			hermes_reply_invalid_params(c, "verb", "UnknownVerb", "%s",
			                            err.message);
			return;
		}
		char *idl = hermes_idl_for_verb(d);
		hermes_buf_puts(&b, "{\"verb\":");
		hermes_buf_json_string(&b, d->name, strlen(d->name));
		hermes_buf_puts(&b, ",\"schema\":");
		if (idl)
			hermes_buf_json_string(&b, idl, strlen(idl));
		else
			b.failed = true;
		free(idl);
	} else {
		hermes_buf_t all = HERMES_BUF_INIT;
		size_t n = hermes_executor_verb_count(srv->ex);
		for (size_t i = 0; i < n; i++) {
			char *idl = hermes_idl_for_verb(hermes_executor_verb_at(srv->ex, i));
			if (idl == NULL)
				all.failed = true;
			else {
				if (i)
					hermes_buf_puts(&all, "\n");
				hermes_buf_puts(&all, idl);
			}
			free(idl);
		}
		size_t len = all.len;
		char *text = hermes_buf_finish(&all);
		hermes_buf_puts(&b, "{\"schema\":");
		if (text)
			hermes_buf_json_string(&b, text, len);
		else
			b.failed = true;
		free(text);
	}
	hermes_buf_puts(&b, "}");
	hermes_reply_result(c, hermes_buf_finish(&b));
}
