# examples: programs that show how to use libhermes. Built at `make check` against the in-tree
# library (so they keep compiling), installed as documentation, and compiled once more against a
# staged install by tests/install_package.sh, the way a user builds them.
check_PROGRAMS += examples/embed
examples_embed_SOURCES = examples/embed.c
examples_embed_LDADD = libhermes.la
exampledir = $(docdir)/examples
# systemd units for `hermes mcp --listen=systemd` (README "Run as a service")
dist_example_DATA = examples/embed.c examples/hermes-mcp.socket examples/hermes-mcp.service
