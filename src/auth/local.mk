# src/auth: who may call, for hermes mcp --listen: OAuth 2.1 access tokens that are JWTs, verified
# against the issuer's JWK Set (jwt.h, jwks.c) with OpenSSL's libcrypto, loaded on first use
# (crypto_lib.h); the issuer's metadata and keys fetched with libcurl (curl_lib.h) and cached, and
# verified tokens remembered (oauth.h); a caller's rights from scopes or the token file (rights.h). A mechanism with no idea of HTTP or MCP; depends on src/core only. Built only
# with Streamable HTTP (configure --without-http leaves it out with the server that uses it).
if HAVE_HTTP
noinst_LTLIBRARIES += libhermes_auth.la
libhermes_auth_la_SOURCES = \
	src/auth/jwt.c src/auth/jwt.h \
	src/auth/jwks.c src/auth/jwks_key.h \
	src/auth/crypto_lib.c src/auth/crypto_lib.h \
	src/auth/rights.c src/auth/rights.h \
	src/auth/oauth.c src/auth/oauth.h \
	src/auth/curl_lib.c src/auth/curl_lib.h
libhermes_auth_la_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(CURL_CFLAGS)
libhermes_auth_la_LIBADD = libhermes_core.la
endif
EXTRA_DIST += src/auth/jwt.c src/auth/jwt.h src/auth/jwks.c src/auth/jwks_key.h \
	src/auth/crypto_lib.c src/auth/crypto_lib.h \
	src/auth/rights.c src/auth/rights.h src/auth/oauth.c src/auth/oauth.h \
	src/auth/curl_lib.c src/auth/curl_lib.h
