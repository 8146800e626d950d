# libhermes.so: the executor and every built-in verb as a shared library, for programs that embed
# Hermes (#include <hermes/hermes.h>, pkg-config hermes). It exports exactly the functions the
# installed headers declare: libhermes.sym is extracted from them, so a new public function is
# exported by declaring it, and nothing internal leaks (tests/install_package.sh checks nm -D).
lib_LTLIBRARIES += libhermes.la
libhermes_la_SOURCES =
# libhermes_verbs.la already carries libhermes_core.la (src/verbs/local.mk): naming the core
# again would link its objects twice (libtool takes convenience libraries whole).
# (libcyaml, libyaml and PCRE2 are loaded when first needed, not linked: src/core/dl.h.)
libhermes_la_LIBADD = libhermes_verbs.la $(DLOPEN_LIBS)
libhermes_la_LDFLAGS = -version-info $(HERMES_LT_VERSION) -no-undefined \
	-export-symbols libhermes.sym
EXTRA_libhermes_la_DEPENDENCIES = libhermes.sym
CLEANFILES += libhermes.sym

# The preprocessor drops comments and macros; what is left followed by "(" is a function name.
libhermes.sym: $(hermesinclude_HEADERS)
	$(AM_V_GEN)for h in $(hermesinclude_HEADERS); do \
	  if test -f "$$h"; then echo "#include \"$$h\""; else echo "#include \"$(srcdir)/$$h\""; fi; \
	done | $(CPP) $(AM_CPPFLAGS) $(CPPFLAGS) -P - | tr -s ' \t\n' '   ' \
	  | grep -o 'hermes_[a-z0-9_]* *(' | sed 's/ *($$//' | LC_ALL=C sort -u >$@.tmp \
	  && test -s $@.tmp && mv -f $@.tmp $@

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = hermes.pc
EXTRA_DIST += hermes.pc.in
