/* core/idl.c: the schema IDL, following the spec's reference JsonSchemaBuilder: a type's
 * description as a "// " line, "type Name", "{", one "name: Type" line per property (indented two
 * spaces, "name?:" when not required, its description above it), "}". Types are listed in
 * first-use order (a type before the types it uses), none twice. A verb's IDL opens with a
 * "// traits: " line, a comment so that IDL readers that know nothing of traits skip it. */
#include "config.h"

#include <stdlib.h>

#include "core/buf.h"
#include "core/decode.h"
#include "core/idl.h"

#define MAX_TYPES 64

typedef struct idl {
	const hermes_type_desc_t *types[MAX_TYPES];
	size_t count;
} idl_t;

/* The IDL's (and hermes-verbs(7)'s) word for each trait, in bit order. */
static const struct {
	unsigned bit;
	const char *word;
} trait_words[] = {
	{ HERMES_TRAIT_READ_ONLY, "read-only" },
	{ HERMES_TRAIT_DESTRUCTIVE, "destructive" },
	{ HERMES_TRAIT_IDEMPOTENT, "idempotent" },
	{ HERMES_TRAIT_SPAWNS, "spawns" },
	{ HERMES_TRAIT_LONG, "long" },
	{ HERMES_TRAIT_INSTANT, "instant" },
};

static void write_traits(hermes_buf_t *b, unsigned traits)
{
	const char *sep = "";
	hermes_buf_puts(b, "// traits: ");
	for (size_t i = 0; i < sizeof trait_words / sizeof *trait_words; i++) {
		if (traits & trait_words[i].bit) {
			hermes_buf_printf(b, "%s%s", sep, trait_words[i].word);
			sep = ", ";
		}
	}
	hermes_buf_puts(b, *sep ? "\n" : "none\n");
}

static void add(idl_t *idl, const hermes_type_desc_t *t)
{
	for (size_t i = 0; i < idl->count; i++)
		if (idl->types[i] == t)
			return;
	if (idl->count == MAX_TYPES)
		return;
	idl->types[idl->count++] = t;
	for (size_t i = 0; i < t->field_count; i++)
		if (t->fields[i].kind == HERMES_KIND_OBJECT_LIST)
			add(idl, t->fields[i].element);
}

static void property(hermes_buf_t *b, const hermes_field_desc_t *f)
{
	char tbuf[96], range[96];
	const char *r = hermes_field_range_text(f, range, sizeof range);
	if (f->description && f->description[0])
		hermes_buf_printf(b, "  // %s%s%s\n", f->description, r ? "; range: " : "", r ? r : "");
	hermes_buf_printf(b, "  %s%s: %s\n", f->name,
	                  f->presence == HERMES_PRESENCE_REQUIRED ? "" : "?",
	                  hermes_field_type_name(f, tbuf, sizeof tbuf));
}

static void write_type(hermes_buf_t *b, const hermes_type_desc_t *t)
{
	if (t->description && t->description[0])
		hermes_buf_printf(b, "// %s\n", t->description);
	hermes_buf_printf(b, "type %s\n{\n", t->name);
	for (size_t i = 0; i < t->field_count; i++)
		property(b, &t->fields[i]);
	if (t->is_result)
		for (size_t i = 0; i < hermes_common_result_field_count; i++)
			property(b, &hermes_common_result_fields[i]);
	hermes_buf_puts(b, "}\n");
}

char *hermes_idl_for_verb(const hermes_verb_desc_t *verb)
{
	idl_t idl = { .count = 0 };
	hermes_buf_t b = HERMES_BUF_INIT;
	write_traits(&b, verb->traits);
	add(&idl, verb->args);
	add(&idl, verb->result);
	for (size_t i = 0; i < idl.count; i++)
		write_type(&b, idl.types[i]);
	return hermes_buf_finish(&b);
}
