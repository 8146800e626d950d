/* transport/http/http_check.c: the socket-free decisions of the Streamable HTTP transport (Origin,
 * bearer token, mirrored headers, status codes); see http_check.h. */
#include <config.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/desc.h"
#include "core/json.h"
#include "transport/http/http_check.h"
#include "rpc/jsonrpc.h"

/* scheme://host[:port][/]: host (brackets kept for IPv6) and the rest split out; false if the
 * text is not of that form. */
static bool split_origin(const char *o, const char **scheme_end, const char **host, size_t *host_len)
{
	const char *sep = strstr(o, "://");
	if (sep == NULL || sep == o)
		return false;
	for (const char *p = o; p < sep; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '+' || *p == '-' || *p == '.'))
			return false;
	const char *h = sep + 3, *e;
	if (*h == '[') {
		e = strchr(h, ']');
		if (e == NULL)
			return false;
		e++;
	} else {
		e = h + strcspn(h, ":/");
	}
	if (e == h)
		return false;
	const char *rest = e;
	if (*rest == ':') {
		rest++;
		if (*rest < '0' || *rest > '9')
			return false;
		while (*rest >= '0' && *rest <= '9')
			rest++;
	}
	if (*rest == '/')
		rest++;
	if (*rest != '\0')
		return false;
	*scheme_end = sep;
	*host = h;
	*host_len = (size_t)(e - h);
	return true;
}

static bool loopback_host(const char *h, size_t n)
{
	if ((n == 9 && strncasecmp(h, "localhost", 9) == 0) || (n == 5 && memcmp(h, "[::1]", 5) == 0))
		return true;
	/* 127.0.0.0/8 in dotted decimal */
	if (n < 9 || memcmp(h, "127.", 4) != 0)
		return false;
	int dots = 0, digits = 0;
	for (size_t i = 4; i < n; i++) {
		if (h[i] == '.') {
			if (digits == 0)
				return false;
			dots++, digits = 0;
		} else if (h[i] >= '0' && h[i] <= '9' && digits < 3) {
			digits++;
		} else {
			return false;
		}
	}
	return dots == 2 && digits > 0;
}

/* a and b equal, case-insensitively, a trailing '/' on either ignored */
static bool same_origin(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na && a[na - 1] == '/')
		na--;
	if (nb && b[nb - 1] == '/')
		nb--;
	return na == nb && strncasecmp(a, b, na) == 0;
}

bool hermes_http_origin_allowed(const char *origin, const char *const *allowed, size_t n)
{
	if (origin == NULL)
		return true;
	const char *scheme_end, *host;
	size_t host_len;
	if (!split_origin(origin, &scheme_end, &host, &host_len))
		return false;
	size_t scheme_len = (size_t)(scheme_end - origin);
	bool web = (scheme_len == 4 && strncasecmp(origin, "http", 4) == 0) ||
	           (scheme_len == 5 && strncasecmp(origin, "https", 5) == 0);
	if (web && loopback_host(host, host_len))
		return true;
	for (size_t i = 0; i < n; i++)
		if (same_origin(origin, allowed[i]))
			return true;
	return false;
}

const char *hermes_http_bearer_token(const char *authorization, size_t *len)
{
	if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
		return NULL;
	const char *given = authorization + 7;
	while (*given == ' ')
		given++;
	size_t n = strlen(given);
	while (n && (given[n - 1] == ' ' || given[n - 1] == '\t'))
		n--;
	*len = n;
	return n ? given : NULL;
}

bool hermes_http_bearer_ok(const char *authorization, const char *token, size_t token_len)
{
	size_t n = 0;
	const char *given = hermes_http_bearer_token(authorization, &n);
	if (given == NULL || token_len == 0)
		return false;
	volatile unsigned char diff = n != token_len;
	for (size_t i = 0; i < token_len; i++)
		diff |= (unsigned char)token[i] ^ (unsigned char)(i < n ? given[i] : 0);
	return diff == 0;
}

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int hermes_http_header_decode(const char *value, char **out, size_t *len, char *why, size_t n)
{
	size_t vlen = strlen(value);
	if (vlen >= 11 && strncmp(value, "=?base64?", 9) == 0 && strcmp(value + vlen - 2, "?=") == 0) {
		const char *s = value + 9;
		size_t sn = vlen - 11;
		if (sn % 4 != 0) {
			snprintf(why, n, "'%s' is not valid Base64 (its length is not a multiple of 4)", value);
			return -1;
		}
		char *buf = malloc(sn / 4 * 3 + 1);
		if (buf == NULL) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		size_t o = 0;
		for (size_t i = 0; i < sn; i += 4) {
			int v[4];
			int pad = 0;
			for (int k = 0; k < 4; k++) {
				unsigned char c = (unsigned char)s[i + k];
				if (c == '=' && i + 4 == sn && k >= 2 && (k == 3 || s[i + 3] == '=')) {
					v[k] = 0;
					pad++;
				} else if ((v[k] = b64val(c)) < 0 || pad) {
					free(buf);
					snprintf(why, n, "'%s' is not valid Base64", value);
					return -1;
				}
			}
			uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
			buf[o++] = (char)(w >> 16);
			if (pad < 2)
				buf[o++] = (char)(w >> 8 & 0xff);
			if (pad < 1)
				buf[o++] = (char)(w & 0xff);
		}
		buf[o] = '\0';
		*out = buf;
		*len = o;
		return 0;
	}
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (!((*p >= 0x20 && *p <= 0x7e) || *p == '\t')) {
			snprintf(why, n, "a header value holds the byte 0x%02x (only visible ASCII, space and "
			         "tab; anything else must use the =?base64?...?= form)", *p);
			return -1;
		}
	}
	if ((*out = strdup(value)) == NULL) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	*len = vlen;
	return 0;
}

int hermes_http_mirror_check(const hermes_http_mirror_t *h, const char *version, const char *method,
                             const hermes_json_t *params, bool notification, char *why, size_t n)
{
	if (h->protocol_version == NULL && !notification) {
		snprintf(why, n, "Header mismatch: the MCP-Protocol-Version header is missing (the body "
		         "says %s)", version);
		return -1;
	}
	if (h->protocol_version && strcmp(h->protocol_version, version) != 0) {
		snprintf(why, n, "Header mismatch: MCP-Protocol-Version header value '%s' does not match "
		         "body value '%s'", h->protocol_version, version);
		return -1;
	}
	if (h->method == NULL && !notification) {
		snprintf(why, n, "Header mismatch: the Mcp-Method header is missing (the body's method "
		         "is %s)", method);
		return -1;
	}
	if (h->method && strcmp(h->method, method) != 0) {
		snprintf(why, n, "Header mismatch: Mcp-Method header value '%s' does not match body "
		         "value '%s'", h->method, method);
		return -1;
	}
	const char *field = strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0
	                    ? "name" : strcmp(method, "resources/read") == 0 ? "uri" : NULL;
	const hermes_json_t *v = field ? hermes_json_member(params, field) : NULL;
	if (field == NULL || v == NULL || v->type != HERMES_JSON_STRING) {
		/* no value in the body to mirror: a header would have nothing to match */
		if (h->name && field && !notification) {
			snprintf(why, n, "Header mismatch: Mcp-Name header is present but the body has no "
			         "params.%s string", field);
			return -1;
		}
		return 0;
	}
	if (h->name == NULL) {
		if (notification)
			return 0;
		snprintf(why, n, "Header mismatch: the Mcp-Name header is missing (the body's params.%s "
		         "is '%.100s')", field, v->str);
		return -1;
	}
	char *got, bad[160];
	size_t got_len;
	if (hermes_http_header_decode(h->name, &got, &got_len, bad, sizeof bad) != 0) {
		snprintf(why, n, "Header mismatch: Mcp-Name: %s", bad);
		return -1;
	}
	bool same = got_len == v->len && memcmp(got, v->str, got_len) == 0;
	if (!same)
		snprintf(why, n, "Header mismatch: Mcp-Name header value '%.100s' does not match body "
		         "value '%.100s'", h->name, v->str);
	free(got);
	return same ? 0 : -1;
}

int hermes_http_param_check(const hermes_http_mirror_t *h, const hermes_json_t *params, char *why,
                            size_t n)
{
	const hermes_json_t *name = hermes_json_member(params, "name");
	if (!hermes_json_is_c_string(name) || name->len >= 128)
		return 0;
	char dotted[128];
	snprintf(dotted, sizeof dotted, "%s", name->str);
	const hermes_verb_desc_t *d = hermes_verb_desc_find(dotted);
	char *u = strchr(dotted, '_');
	if (!d && u) {
		*u = '.';
		d = hermes_verb_desc_find(dotted);
	}
	const hermes_field_desc_t *f = NULL;
	for (size_t i = 0; d && i < d->args->field_count; i++)
		if (d->args->fields[i].handle)
			f = &d->args->fields[i];
	if (!f)
		return 0; /* nothing of this tool is mirrored (a stray Mcp-Param-* is forwarded, ignored) */
	const hermes_json_t *v = hermes_json_member(hermes_json_member(params, "arguments"), f->name);
	if (!v || v->type == HERMES_JSON_NULL) {
		if (h->param_handle) {
			snprintf(why, n, "Header mismatch: Mcp-Param-Handle is present but params.arguments "
			         "has no %s", f->name);
			return -1;
		}
		return 0;
	}
	if (v->type != HERMES_JSON_STRING)
		return 0; /* mistyped: the decoder says so */
	if (!h->param_handle) {
		snprintf(why, n, "Header mismatch: the Mcp-Param-Handle header is missing (params."
		         "arguments.%s is '%.100s'; the tool's schema marks it x-mcp-header)", f->name, v->str);
		return -1;
	}
	char *got, bad[160];
	size_t got_len;
	if (hermes_http_header_decode(h->param_handle, &got, &got_len, bad, sizeof bad) != 0) {
		snprintf(why, n, "Header mismatch: Mcp-Param-Handle: %s", bad);
		return -1;
	}
	bool same = got_len == v->len && memcmp(got, v->str, got_len) == 0;
	if (!same)
		snprintf(why, n, "Header mismatch: Mcp-Param-Handle header value '%.100s' does not match "
		         "body value '%.100s'", h->param_handle, v->str);
	free(got);
	return same ? 0 : -1;
}

int hermes_http_status_for(int rpc_code)
{
	switch (rpc_code) {
	case 0:
	case HERMES_RPC_CANCELLED:
		return 200;
	case HERMES_RPC_METHOD_NOT_FOUND:
		return 404;
	case HERMES_RPC_INTERNAL_ERROR:
		return 500;
	default:
		return 400;
	}
}

/* ---- raw transfers ------------------------------------------------------------------------ */

int hermes_http_files_path(const char *uri, const char *prefix, char **out, char *why, size_t n)
{
	size_t pl = strlen(prefix);
	if (uri == NULL || strncmp(uri, prefix, pl) != 0) {
		snprintf(why, n, "the path does not begin with %s", prefix);
		return -1;
	}
	const char *p = uri + pl;
	size_t len = strcspn(p, "?#");
	if (len == 0) {
		snprintf(why, n, "no file named after %s", prefix);
		return -1;
	}
	char *s = malloc(len + 1);
	if (s == NULL) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	size_t j = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '%') {
			int hi = i + 2 < len ? hermes_json_hexval(p[i + 1]) : -1;
			int lo = hi >= 0 ? hermes_json_hexval(p[i + 2]) : -1;
			if (lo < 0) {
				snprintf(why, n, "a bad percent escape at byte %zu of the path", i);
				free(s);
				return -1;
			}
			c = (unsigned char)(hi * 16 + lo);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f) {
			snprintf(why, n, "the path holds a %s (byte %zu)", c ? "control character" : "NUL",
			         i);
			free(s);
			return -1;
		}
		s[j++] = (char)c;
	}
	s[j] = '\0';
	*out = s;
	return 0;
}

/* A decimal number of at most 19 digits at *p (spaces before it skipped); -1 if none. */
static int64_t range_number(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
	int64_t v = 0;
	int digits = 0;
	while (**p >= '0' && **p <= '9') {
		if (++digits > 18)
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	while (**p == ' ' || **p == '\t')
		(*p)++;
	return digits ? v : -1;
}

int hermes_http_range_parse(const char *range, uint64_t size, uint64_t *off, uint64_t *len)
{
	if (range == NULL)
		return 0;
	while (*range == ' ' || *range == '\t')
		range++;
	if (strncasecmp(range, "bytes", 5) != 0)
		return 0;
	const char *p = range + 5;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '=')
		return 0;
	int64_t first = range_number(&p);
	if (*p++ != '-')
		return 0;
	int64_t last = range_number(&p);
	if (*p != '\0')
		return 0; /* several ranges, or something else: the whole file */
	if (first < 0) {
		if (last < 0)
			return 0;
		if (last == 0 || size == 0)
			return -1;
		uint64_t n = (uint64_t)last < size ? (uint64_t)last : size;
		*off = size - n;
		*len = n;
		return 1;
	}
	if (last >= 0 && last < first)
		return 0; /* invalid: ignored */
	if ((uint64_t)first >= size)
		return -1;
	uint64_t end = last < 0 || (uint64_t)last >= size ? size - 1 : (uint64_t)last;
	*off = (uint64_t)first;
	*len = end - (uint64_t)first + 1;
	return 1;
}

bool hermes_http_etag_match(const char *header, const char *etag, bool exists, bool weak)
{
	if (header == NULL)
		return false;
	size_t el = strlen(etag);
	const char *p = header;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		size_t tl = strcspn(p, ",");
		size_t t = tl;
		while (t > 0 && (p[t - 1] == ' ' || p[t - 1] == '\t'))
			t--;
		const char *tag = p;
		if (t == 1 && tag[0] == '*') {
			if (exists)
				return true;
		} else {
			if (weak && t >= 2 && tag[0] == 'W' && tag[1] == '/') {
				tag += 2;
				t -= 2;
			}
			if (exists && t == el && memcmp(tag, etag, el) == 0)
				return true;
		}
		p += tl;
	}
	return false;
}

bool hermes_http_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a))
			return a->s6_addr[12] == 127;
		return IN6_IS_ADDR_LOOPBACK(a);
	}
	return false;
}
