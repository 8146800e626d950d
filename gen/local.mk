# The generator: defs/*.def -> C structs, descriptor tables, libcyaml schemas, the handler
# prototypes and registration table of src/verbs, the JSON Schemas of the verbs, the manual of
# the verbs.
# One output per rule (a multi-output rule would run twice under make -j); each output is written
# to $@.tmp and renamed so an interrupted run never leaves a half file behind. The outputs are
# distributed, so a tarball builds without Python.
HERMES_DEFS = $(srcdir)/defs/verbs.def $(srcdir)/defs/errors.def
HERMES_GEN_PY = \
	gen/hermes-gen \
	gen/hermes_gen/__init__.py \
	gen/hermes_gen/model.py \
	gen/hermes_gen/parse.py \
	gen/hermes_gen/names.py \
	gen/hermes_gen/emit_types_h.py \
	gen/hermes_gen/emit_descriptors_c.py \
	gen/hermes_gen/emit_yaml_schema_c.py \
	gen/hermes_gen/emit_handlers_h.py \
	gen/hermes_gen/emit_registry_c.py \
	gen/hermes_gen/emit_json_schema_c.py \
	gen/hermes_gen/emit_man.py
HERMES_GEN_DEPS = $(HERMES_DEFS) $(HERMES_GEN_PY:%=$(srcdir)/%)
EXTRA_DIST += defs/verbs.def defs/errors.def $(HERMES_GEN_PY)

hermes_gen_run = \
	if test "$(PYTHON)" = ":"; then \
	  echo "error: Python 3 is needed to regenerate $@ from defs/ (configure found none)" >&2; exit 1; \
	fi; \
	$(MKDIR_P) $(@D) && \
	$(PYTHON) $(srcdir)/gen/hermes-gen --defs $(srcdir)/defs

include/hermes/types.h: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) types-h >$@.tmp && mv -f $@.tmp $@
src/core/gen_descriptors.c: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) descriptors-c >$@.tmp && mv -f $@.tmp $@
src/core/gen_yaml_schema.c: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) yaml-schema-c >$@.tmp && mv -f $@.tmp $@
src/verbs/gen_handlers.h: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) handlers-h >$@.tmp && mv -f $@.tmp $@
src/verbs/gen_registry.c: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) registry-c >$@.tmp && mv -f $@.tmp $@
src/core/gen_json_schema.c: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) json-schema-c >$@.tmp && mv -f $@.tmp $@

HERMES_GENERATED = include/hermes/types.h src/core/gen_descriptors.c src/core/gen_yaml_schema.c \
	src/verbs/gen_handlers.h src/verbs/gen_registry.c src/core/gen_json_schema.c
BUILT_SOURCES += $(HERMES_GENERATED)
MAINTAINERCLEANFILES += $(HERMES_GENERATED)

# The manual of the verbs (installed by doc/local.mk; not a source, so not in BUILT_SOURCES).
doc/hermes-verbs.7: $(HERMES_GEN_DEPS)
	$(AM_V_GEN)$(hermes_gen_run) man-verbs >$@.tmp && mv -f $@.tmp $@
MAINTAINERCLEANFILES += doc/hermes-verbs.7
