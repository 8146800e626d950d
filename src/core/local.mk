# src/core: the executor, registry, envelope decoding (JSON and YAML), result encoding, schema
# IDL, the verbs' JSON Schemas and errors. No file system, process or console I/O here.
noinst_LTLIBRARIES += libhermes_core.la
libhermes_core_la_SOURCES = \
	src/core/desc.h \
	src/core/verb.h \
	src/core/executor.h \
	src/core/idl.h \
	src/core/document.h \
	src/core/zalloc.h \
	src/core/buf.c src/core/buf.h \
	src/core/json_escape.c \
	src/core/base64.c src/core/base64.h \
	src/core/dl.c src/core/dl.h \
	src/core/fdio.c src/core/fdio.h \
	src/core/processors.c src/core/processors.h \
	src/core/instance.c src/core/instance.h \
	src/core/utf8.c src/core/utf8.h \
	src/core/json.c src/core/json.h \
	src/core/cancel.c \
	src/core/error.c \
	src/core/structs.c \
	src/core/decode.c src/core/decode.h \
	src/core/decode_json.c \
	src/core/decode_yaml.c src/core/yaml_lib.c src/core/yaml_lib.h \
	src/core/encode.c src/core/encode.h \
	src/core/idl.c \
	src/core/document.c \
	src/core/executor.c \
	src/core/gen_descriptors.c \
	src/core/gen_yaml_schema.c \
	src/core/json_schema.h src/core/gen_json_schema.c
# libcyaml and libyaml are loaded when the first YAML envelope comes (core/yaml_lib.h), not linked.
libhermes_core_la_LIBADD = $(DLOPEN_LIBS) -lm
hermesinclude_HEADERS += include/hermes/hermes.h include/hermes/types.h
