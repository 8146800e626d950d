# src/cli: the hermes program: argument parsing, exec / schema / verbs, the interactive console.
bin_PROGRAMS += hermes
hermes_SOURCES = \
	src/cli/main.c \
	src/cli/options.c src/cli/options.h \
	src/cli/cmd_exec.c \
	src/cli/cmd_schema.c \
	src/cli/commands.h
hermes_LDADD = libhermes_verbs.la libhermes_core.la $(CJSON_LIBS) $(CYAML_LIBS)
