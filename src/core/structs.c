/* core/structs.c: allocation and release of any table type, walking its descriptor. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/desc.h"
#include "core/zalloc.h"

static void *at(void *obj, size_t off)
{
	return (char *)obj + off;
}

/* Releases what obj's fields own; strings too unless they lie in a result's one block. */
static void clear_fields(const hermes_type_desc_t *desc, void *obj, bool own_strings)
{
	for (size_t i = 0; i < desc->field_count; i++) {
		const hermes_field_desc_t *f = &desc->fields[i];
		switch (f->kind) {
		case HERMES_KIND_STRING:
			if (own_strings)
				free(*(char **)at(obj, f->offset));
			break;
		case HERMES_KIND_STRING_LIST: {
			char **items = *(char ***)at(obj, f->offset);
			size_t n = *(size_t *)at(obj, f->count_offset);
			for (size_t j = 0; own_strings && items && j < n; j++)
				free(items[j]);
			free(items);
			break;
		}
		case HERMES_KIND_OBJECT_LIST: {
			char *items = *(char **)at(obj, f->offset);
			size_t n = *(size_t *)at(obj, f->count_offset);
			for (size_t j = 0; items && j < n; j++)
				clear_fields(f->element, items + j * f->element->size, own_strings);
			free(items);
			break;
		}
		default:
			break;
		}
	}
}

void hermes_struct_clear(const hermes_type_desc_t *desc, void *obj)
{
	if (!obj)
		return;
	hermes_result_common_t *common = desc->is_result ? obj : NULL;
	clear_fields(desc, obj, !(common && common->strings));
	if (common) {
		free(common->error_message);
		free(common->strings);
	}
	memset(obj, 0, desc->size);
}

void hermes_struct_free(const hermes_type_desc_t *desc, void *obj)
{
	if (!obj)
		return;
	hermes_struct_clear(desc, obj);
	free(obj);
}

void *hermes_struct_new(const hermes_type_desc_t *desc)
{
	void *obj = hermes_zalloc(desc->size); /* every call of a server makes two */
	if (obj && desc->is_result)
		((hermes_result_common_t *)obj)->succeeded = true;
	return obj;
}

const hermes_verb_desc_t *hermes_verb_desc_find(const char *name)
{
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		if (strcasecmp(hermes_verb_descs[i].name, name) == 0)
			return &hermes_verb_descs[i];
	return NULL;
}
