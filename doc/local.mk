# doc: the manual pages. hermes(1) is written by hand (doc/hermes.1.in; the build fills in the
# version). hermes-verbs(7) is generated from the verb table by gen/hermes-gen (its rule is in
# gen/local.mk, with the other outputs) and shipped in the tarball, so building from a tarball
# needs no Python.
dist_man_MANS = doc/hermes-verbs.7
nodist_man_MANS = doc/hermes.1
EXTRA_DIST += doc/hermes.1.in doc/DESIGN.md
# The protocol of hermes serve and hermes mcp (both transports), installed in $(docdir)
dist_doc_DATA += doc/PROTOCOL.md
CLEANFILES += doc/hermes.1

doc/hermes.1: doc/hermes.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) doc && \
	sed -e 's|@VERSION[@]|$(PACKAGE_VERSION)|g' $(srcdir)/doc/hermes.1.in >$@.tmp && mv -f $@.tmp $@
