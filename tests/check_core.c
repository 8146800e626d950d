/* tests/check_core.c: Check suites for src/core: the strict JSON reader, UTF-8, the registry,
 * both envelope decoders (every error path), JSON/YAML equivalence, the result encoder, the IDL
 * writer, document splitting and cancellation tokens. Verbs here are stubs that echo their
 * arguments, so these tests need no file system. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hermes/hermes.h>

#include "core/decode.h"
#include "core/document.h"
#include "core/encode.h"
#include "core/executor.h"
#include "core/idl.h"
#include "core/instance.h"
#include "core/json.h"
#include "core/utf8.h"
#include "core/verb.h"
#include "check_run.h"

/* ---- stub verbs ----------------------------------------------------------------------------- */

static void stub_read_range(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_fs_read_range_args_t *args = a;
	hermes_fs_read_range_result_t *res = r;
	(void)call;
	if (asprintf(&res->content, "path=%s start=%d end=%d numbers=%d", args->path, args->start_line,
	             args->end_line, args->include_line_numbers) < 0)
		res->content = NULL;
}

static void stub_write_range(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_fs_write_range_args_t *args = a;
	(void)call;
	if (args->has_end_line)
		hermes_result_fail(r, HERMES_E_INVALID_ARGUMENT, "end=%d content=%s", args->end_line,
		                   args->content);
}

static void stub_proc_run(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_proc_run_args_t *args = a;
	hermes_proc_run_result_t *res = r;
	char joined[512] = "";
	(void)call;
	for (size_t i = 0; i < args->arguments_count; i++) {
		strcat(joined, i ? "|" : "");
		strncat(joined, args->arguments[i], 100);
	}
	res->exit_code = (int32_t)args->arguments_count;
	res->stdout_path = strdup(joined);
	res->stderr_path = strdup(args->executable);
	if (args->has_timeout_seconds) {
		hermes_result_fail(r, HERMES_E_TIMEOUT, "timed out after %d s", args->timeout_seconds);
		res->common.keep_fields = true;
	}
}

static void stub_machine_info(const hermes_call_t *call, const void *a, void *r)
{
	hermes_sys_machine_info_result_t *res = r;
	(void)call;
	(void)a;
	res->operating_system = strdup("Bad\xff\xfeOS \"quoted\"\n\x01");
	res->cpu_count = INT32_MIN;
	res->total_memory_bytes = INT64_MAX;
	res->disks = calloc(2, sizeof *res->disks);
	res->disks_count = 2;
	res->disks[0].name = strdup("/");
	res->disks[0].total_bytes = INT64_MIN;
	res->disks[0].free_bytes = 0;
	res->disks[1].name = strdup("/\xc3\xa9t\xc3\xa9");
	res->disks[1].total_bytes = 9007199254740993LL;
	res->disks[1].free_bytes = 1;
}

static void stub_exists(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_fs_exists_args_t *args = a;
	hermes_fs_exists_result_t *res = r;
	(void)call;
	res->exists = true; /* must not be printed: the result fails */
	hermes_result_fail(r, HERMES_E_NOT_FOUND, "cannot test '%s': no such file", args->path);
}

static hermes_executor_t *stub_executor(void)
{
	hermes_config_t cfg = { .max_envelope_bytes = 4096 };
	hermes_executor_t *ex = hermes_executor_create(&cfg, "/nonexistent", NULL, NULL);
	ck_assert_ptr_nonnull(ex);
	ck_assert_int_eq(hermes_executor_register(ex, "fs.readRange", stub_read_range, NULL), 0);
	ck_assert_int_eq(hermes_executor_register(ex, "fs.writeRange", stub_write_range, NULL), 0);
	ck_assert_int_eq(hermes_executor_register(ex, "proc.run", stub_proc_run, NULL), 0);
	ck_assert_int_eq(hermes_executor_register(ex, "sys.machineInfo", stub_machine_info, NULL), 0);
	ck_assert_int_eq(hermes_executor_register(ex, "fs.exists", stub_exists, NULL), 0);
	return ex;
}

/* Runs text; returns the result JSON (static buffer) and sets *outcome and the error. */
static hermes_error_t last_err;
static char last_json[8192];
static hermes_outcome_t run(const char *text)
{
	hermes_executor_t *ex = stub_executor();
	char *out = NULL;
	memset(&last_err, 0, sizeof last_err);
	hermes_outcome_t o = hermes_execute(ex, text, strlen(text), 0, NULL, &out, &last_err);
	ck_assert_ptr_nonnull(out);
	snprintf(last_json, sizeof last_json, "%s", out);
	free(out);
	hermes_executor_free(ex);
	return o;
}

#define ck_assert_invalid(text, want, msg_part)                                                    \
	do {                                                                                       \
		ck_assert_int_eq(run(text), HERMES_OUTCOME_INVALID);                               \
		ck_assert_msg(last_err.code == (want), "code %d for %s: %s", last_err.code, text,   \
		              last_err.message);                                                   \
		ck_assert_msg(strstr(last_err.message, msg_part), "message '%s' lacks '%s'",        \
		              last_err.message, msg_part);                                         \
		ck_assert_msg(strstr(last_json, hermes_errcode_name(want)), "json: %s", last_json);  \
	} while (0)

/* ---- json reader ---------------------------------------------------------------------------- */

/* 0 if s is exactly one JSON value (whitespace around it allowed), 1 if data follows it, -1 if it
 * is not JSON. */
static int scan(const char *s, hermes_error_t *err)
{
	size_t end;
	hermes_json_doc_t *doc = NULL;
	int rc = hermes_json_parse(s, strlen(s), 64, &doc, &end, err);
	hermes_json_doc_free(doc);
	if (rc == 0 && hermes_json_skip_ws(s, strlen(s), end) != strlen(s))
		return 1; /* trailing data */
	return rc;
}

/* Parses s (which must be valid); the caller frees *doc. */
static const hermes_json_t *tree(const char *s, size_t len, hermes_json_doc_t **doc)
{
	size_t end;
	hermes_error_t err;
	ck_assert_msg(hermes_json_parse(s, len, 64, doc, &end, &err) == 0, "%s: %s", s, err.message);
	ck_assert_uint_eq(end, len);
	return hermes_json_root(*doc);
}

START_TEST(scan_valid)
{
	static const char *ok[] = { "{}", "[]", " {\"a\": [1, -0.5e+3, true, false, null, \"x\"]} ",
	                            "\"\\ud83d\\ude00\"", "0", "-0", "1E5", "\"\\u00e9\\/\\b\\f\\n\\r\\t\"",
	                            "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		ck_assert_msg(scan(ok[i], NULL) == 0, "rejected %s", ok[i]);
}
END_TEST

START_TEST(scan_invalid)
{
	static const char *bad[] = { "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "{,}", "01", "1.", ".5",
	                             "+1", "1e", "tru", "nul", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"",
	                             "\"a\tb\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "[1 2]",
	                             "{'a':1}", "\"unterminated", "[\"\\u12\"]", "\xef\xbb\xbf{}" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(scan(bad[i], NULL) != 0, "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(scan_positions)
{
	hermes_error_t err;
	ck_assert_int_eq(scan("{\n  \"a\": 1,\n  \"b\" 2\n}", &err), -1);
	ck_assert_int_eq(err.line, 3);
	ck_assert_int_eq(err.column, 7);
	ck_assert_int_eq(err.code, HERMES_E_INVALID_ENVELOPE);
	ck_assert_ptr_nonnull(strstr(err.message, "expected ':'"));
}
END_TEST

START_TEST(scan_depth)
{
	char deep[200];
	hermes_error_t err;
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	deep[130] = '\0';
	ck_assert_int_eq(scan(deep, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "deeper than 64"));
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	deep[128] = '\0';
	ck_assert_int_eq(scan(deep, NULL), 0); /* exactly 64 levels */
}
END_TEST

/* Strings carry their length: an escaped NUL is kept, never a place where the string ends. */
START_TEST(json_strings_carry_length)
{
	hermes_json_doc_t *doc;
	const char *text = "{\"a\\u0000b\": \"x\\u0000y\\n\\u00e9\\ud83d\\ude00\", \"plain\": \"abc\"}";
	const hermes_json_t *root = tree(text, strlen(text), &doc);
	ck_assert_int_eq(root->type, HERMES_JSON_OBJECT);
	ck_assert_uint_eq(root->count, 2);
	const hermes_json_t *m = root->child;
	ck_assert_uint_eq(m->key_len, 3);
	ck_assert_int_eq(memcmp(m->key, "a\0b", 4), 0);
	ck_assert_uint_eq(m->len, 10);
	ck_assert_int_eq(memcmp(m->str, "x\0y\n\xc3\xa9\xf0\x9f\x98\x80", 11), 0);
	ck_assert(!hermes_json_is_c_string(m));
	ck_assert_ptr_null(hermes_json_member(root, "a")); /* "a\u0000b" is not "a" */
	const hermes_json_t *plain = hermes_json_member(root, "plain");
	ck_assert_ptr_nonnull(plain);
	ck_assert(hermes_json_is_c_string(plain));
	ck_assert_str_eq(plain->str, "abc");
	/* Positions: the raw text of each value. */
	ck_assert_int_eq(strncmp(text + plain->start, "\"abc\"", plain->end - plain->start), 0);
	hermes_json_doc_free(doc);
}
END_TEST

START_TEST(json_integers)
{
	static const struct { const char *text; int rc; long long value; } cases[] = {
		{ "0", 0, 0 }, { "-0", 0, 0 }, { "2147483647", 0, 2147483647 },
		{ "-2147483648", 0, -2147483648LL }, { "2147483648", -2, 0 }, { "1.0", -1, 0 },
		{ "1e3", -1, 0 }, { "1E0", -1, 0 }, { "-1.5", -1, 0 }, { "1e400", -1, 0 },
		{ "99999999999999999999999", -2, 0 }, { "\"1\"", -1, 0 }, { "true", -1, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hermes_json_doc_t *doc;
		const hermes_json_t *v = tree(cases[i].text, strlen(cases[i].text), &doc);
		int64_t out = 42;
		ck_assert_msg(hermes_json_integer(v, INT32_MIN, INT32_MAX, &out) == cases[i].rc, "%s",
		              cases[i].text);
		if (cases[i].rc == 0)
			ck_assert_int_eq(out, cases[i].value);
		hermes_json_doc_free(doc);
	}
	/* Int64 is exact over its whole range: no detour through a double. */
	hermes_json_doc_t *doc;
	const hermes_json_t *v = tree("9223372036854775807", 19, &doc);
	int64_t out;
	ck_assert_int_eq(hermes_json_integer(v, INT64_MIN, INT64_MAX, &out), 0);
	ck_assert(out == INT64_MAX);
	hermes_json_doc_free(doc);
	v = tree("9007199254740993", 16, &doc);
	ck_assert_int_eq(hermes_json_integer(v, INT64_MIN, INT64_MAX, &out), 0);
	ck_assert(out == 9007199254740993LL);
	hermes_json_doc_free(doc);
}
END_TEST

/* Repeated keys are marked, in linear time: 200,000 members, every one repeated once. */
START_TEST(json_repeated_keys)
{
	hermes_json_doc_t *doc;
	const char *small = "{\"a\":1,\"b\":2,\"a\":3,\"b\":4}";
	const hermes_json_t *root = tree(small, strlen(small), &doc);
	ck_assert_ptr_nonnull(root->first_repeat);
	ck_assert_str_eq(root->first_repeat->key, "a");
	ck_assert_str_eq(root->first_repeat->str, "3");
	int repeated = 0;
	for (const hermes_json_t *m = root->child; m; m = m->next)
		repeated += m->repeated;
	ck_assert_int_eq(repeated, 2);
	hermes_json_doc_free(doc);

	enum { N = 100000 };
	size_t cap = (size_t)N * 2 * 16 + 16, len = 0;
	char *big = malloc(cap);
	big[len++] = '{';
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < N; i++)
			len += (size_t)snprintf(big + len, cap - len, "%s\"k%d\":%d", len > 1 ? "," : "", i, i);
	big[len++] = '}';
	root = tree(big, len, &doc);
	ck_assert_uint_eq(root->count, 2 * N);
	ck_assert_ptr_nonnull(root->first_repeat);
	ck_assert_str_eq(root->first_repeat->key, "k0");
	repeated = 0;
	for (const hermes_json_t *m = root->child; m; m = m->next)
		repeated += m->repeated;
	ck_assert_int_eq(repeated, N);
	hermes_json_doc_free(doc);
	/* Distinct keys that collide in no way are not marked. */
	len = 0;
	big[len++] = '{';
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(big + len, cap - len, "%s\"k%d\":[]", i ? "," : "", i);
	big[len++] = '}';
	root = tree(big, len, &doc);
	ck_assert_ptr_null(root->first_repeat);
	hermes_json_doc_free(doc);
	free(big);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* JSONTestSuite: y_ must be accepted, n_ rejected, i_ handled without crashing; and every file,
 * put into an envelope, gives either a decoding error about the value or a syntax error. */
START_TEST(scan_json_test_suite)
{
	/* tests/local.mk points JSONTESTSUITE_DIR at the copy in tests/data. */
	const char *dir = getenv("JSONTESTSUITE_DIR");
	ck_assert_msg(dir != NULL, "JSONTESTSUITE_DIR is not set (run through make check)");
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "JSONTestSuite not found at %s", dir);
	int counted = 0;
	hermes_executor_t *ex = stub_executor();
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[8192];
		size_t len, end;
		if (e->d_name[0] != 'y' && e->d_name[0] != 'n' && e->d_name[0] != 'i')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		char *text = slurp(path, &len);
		ck_assert_ptr_nonnull(text);
		hermes_json_doc_t *doc = NULL;
		int rc = hermes_json_parse(text, len, HERMES_JSON_MAX_DEPTH_LIMIT, &doc, &end, NULL);
		hermes_json_doc_free(doc);
		bool accepted = rc == 0 && hermes_json_skip_ws(text, len, end) == len;
		if (e->d_name[0] == 'y')
			ck_assert_msg(accepted, "valid JSON rejected: %s", e->d_name);
		else if (e->d_name[0] == 'n')
			ck_assert_msg(!accepted, "invalid JSON accepted: %s", e->d_name);
		/* As the value of an argument, through the whole executor. */
		char *env = malloc(len + 100);
		int n = sprintf(env, "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":");
		memcpy(env + n, text, len);
		memcpy(env + n + len, "}}", 3);
		char *out = NULL;
		hermes_error_t err;
		hermes_outcome_t o = hermes_execute(ex, env, (size_t)n + len + 2, 0, NULL, &out, &err);
		ck_assert_ptr_nonnull(out);
		if (e->d_name[0] == 'n' && !strstr(e->d_name, "n_structure_100000_opening_arrays") &&
		    !strstr(e->d_name, "open_array_object"))
			ck_assert_msg(o == HERMES_OUTCOME_INVALID && err.code == HERMES_E_INVALID_ENVELOPE,
			              "%s: %s", e->d_name, out);
		if (e->d_name[0] == 'y' && o == HERMES_OUTCOME_INVALID)
			ck_assert_msg(err.code == HERMES_E_INVALID_ARGUMENTS ||
			              strstr(err.message, "NUL") || strstr(err.message, "deeper"),
			              "%s: %s", e->d_name, err.message);
		free(out);
		free(env);
		free(text);
		counted++;
	}
	closedir(d);
	hermes_executor_free(ex);
	ck_assert_int_gt(counted, 300);
}
END_TEST

/* ---- utf8 ---------------------------------------------------------------------------------- */

START_TEST(utf8_validation)
{
	ck_assert(hermes_utf8_valid("plain ascii text, long enough for the fast path", 48));
	ck_assert(hermes_utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", 13));
	ck_assert(!hermes_utf8_valid("\xc3", 1));
	ck_assert(!hermes_utf8_valid("\xc1\xbf", 2));         /* overlong */
	ck_assert(!hermes_utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
	ck_assert(!hermes_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
	ck_assert(!hermes_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	ck_assert(!hermes_utf8_valid("\xff", 1));
	ck_assert_uint_eq(hermes_utf8_validate("abcdefghij\x80", 11), 10);
}
END_TEST

/* ---- registry ------------------------------------------------------------------------------- */

START_TEST(registry_rules)
{
	hermes_executor_t *ex = stub_executor();
	hermes_error_t err;
	ck_assert_ptr_eq(hermes_executor_find(ex, "FS.READRANGE"), hermes_executor_find(ex, "fs.readRange"));
	ck_assert_ptr_nonnull(hermes_executor_find(ex, "fs.readrange"));
	ck_assert_ptr_null(hermes_executor_find(ex, "fs.readFile")); /* in the table, not registered */
	ck_assert_int_eq(hermes_executor_register(ex, "FS.READRANGE", stub_read_range, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "already registered"));
	ck_assert_int_eq(hermes_executor_register(ex, "fs.teleport", stub_read_range, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_UNKNOWN_VERB);
	ck_assert_uint_eq(hermes_executor_verb_count(ex), 5);
	for (size_t i = 1; i < 5; i++)
		ck_assert_int_lt(strcasecmp(hermes_executor_verb_at(ex, i - 1)->name,
		                            hermes_executor_verb_at(ex, i)->name), 0);
	ck_assert_ptr_null(hermes_executor_verb_at(ex, 5));
	hermes_executor_free(ex);
	/* The case-insensitive lookup runs the verb. */
	ck_assert_int_eq(run("{\"verb\":\"FS.READRANGE\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2}}"),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_ptr_nonnull(strstr(last_json, "path=a start=1 end=2 numbers=1"));
}
END_TEST

/* ---- decoding: every error path ----------------------------------------------------------- */

START_TEST(decode_json_errors)
{
	ck_assert_invalid("{\"verb\":\"fs.readRnge\",\"arguments\":{}}", HERMES_E_UNKNOWN_VERB,
	                  "did you mean: fs.readFile, fs.readRange");
	ck_assert_str_eq(last_err.field, "verb");
	ck_assert_invalid("{\"verb\":\"fs.teleport\"}", HERMES_E_UNKNOWN_VERB, "hermes verbs");
	ck_assert_invalid("{\"verb\":\"fs.readFile\"}", HERMES_E_UNKNOWN_VERB, "not available");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"limit\":3}}",
	                  HERMES_E_INVALID_ARGUMENTS,
	                  "unknown argument 'limit' for fs.readRange (expected: path, startLine, endLine, includeLineNumbers)");
	ck_assert_str_eq(last_err.field, "arguments.limit");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "missing required argument 'startLine' for fs.readRange");
	ck_assert_str_eq(last_err.field, "arguments.startLine");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":\"ten\",\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "startLine: expected Int32, got string \"ten\"");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":3.9,\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "startLine: expected Int32, got number 3.9");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":2147483648,\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "startLine: 2147483648 is out of range for Int32");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":null,\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "startLine: expected Int32, got null");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":7,\"startLine\":1,\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "path: expected String, got number 7");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"includeLineNumbers\":\"yes\"}}",
	                  HERMES_E_INVALID_ARGUMENTS, "includeLineNumbers: expected Boolean, got string \"yes\"");
	ck_assert_invalid("{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":\"-l\"}}",
	                  HERMES_E_INVALID_ARGUMENTS, "arguments: expected String[], got string \"-l\"");
	ck_assert_invalid("{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[\"-l\",3]}}",
	                  HERMES_E_INVALID_ARGUMENTS, "arguments[1]: expected String, got number 3");
	ck_assert_str_eq(last_err.field, "arguments.arguments[1]");
	ck_assert_invalid("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"path\":\"b\",\"startLine\":1,\"endLine\":2}}",
	                  HERMES_E_INVALID_ARGUMENTS, "duplicate key 'path' in arguments");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"verb\":\"fs.exists\"}", HERMES_E_INVALID_ENVELOPE,
	                  "duplicate key 'verb' in envelope");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"args\":{}}", HERMES_E_INVALID_ENVELOPE,
	                  "unknown key 'args' in envelope (expected: verb, arguments)");
	ck_assert_invalid("{\"Verb\":\"fs.exists\"}", HERMES_E_INVALID_ENVELOPE, "unknown key 'Verb'");
	ck_assert_invalid("{\"arguments\":{}}", HERMES_E_INVALID_ENVELOPE, "missing \"verb\"");
	ck_assert_invalid("{\"verb\":5}", HERMES_E_INVALID_ENVELOPE, "verb: expected String");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"arguments\":[1]}", HERMES_E_INVALID_ARGUMENTS,
	                  "arguments: expected an object, got array");
	/* A NUL would cut a C string short ("important.txt\u0000.bak" naming important.txt): every
	 * string argument, name and list item refuses it, naming the field. */
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"a\\u0000b\"}}",
	                  HERMES_E_INVALID_ARGUMENTS, "path: a NUL character (\\u0000) is not allowed");
	ck_assert_str_eq(last_err.field, "arguments.path");
	ck_assert_int_eq(last_err.column, 41); /* the value */
	ck_assert_invalid("{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[\"-l\",\"\\u0000\"]}}",
	                  HERMES_E_INVALID_ARGUMENTS, "arguments[1]: a NUL character");
	ck_assert_str_eq(last_err.field, "arguments.arguments[1]");
	ck_assert_invalid("{\"verb\":\"fs.exists\\u0000x\",\"arguments\":{\"path\":\"a\"}}",
	                  HERMES_E_INVALID_ENVELOPE, "verb: a NUL character");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"arguments\":{\"path\\u0000\":\"a\"}}",
	                  HERMES_E_INVALID_ARGUMENTS, "unknown argument 'path'");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"a\xff\"}}",
	                  HERMES_E_INVALID_ENVELOPE, "invalid UTF-8 in string (found byte 0xFF)");
	ck_assert_int_eq(last_err.column, 43);
	ck_assert_invalid("{\"verb\":\"fs.exists\"} {}", HERMES_E_INVALID_ENVELOPE, "unexpected data after");
	ck_assert_invalid("{\"verb\":\"fs.exists\",\n\"arguments\":{\"path\":}}", HERMES_E_INVALID_ENVELOPE,
	                  "JSON syntax error: expected a value");
	ck_assert_int_eq(last_err.line, 2);
	ck_assert_int_eq(last_err.column, 21);
	char big[5000];
	memset(big, ' ', sizeof big);
	memcpy(big, "{\"verb\":\"fs.exists\"}", 20);
	big[sizeof big - 1] = '\0';
	ck_assert_invalid(big, HERMES_E_INVALID_ENVELOPE, "over the limit of 4096 bytes");
	char deep[300] = "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":";
	size_t n = strlen(deep);
	memset(deep + n, '[', 70);
	memset(deep + n + 70, ']', 70);
	strcpy(deep + n + 140, "}}");
	ck_assert_invalid(deep, HERMES_E_INVALID_ENVELOPE, "nesting deeper than 64");
}
END_TEST

START_TEST(decode_yaml_errors)
{
	ck_assert_invalid("verb: fs.readRnge\narguments: {}\n", HERMES_E_UNKNOWN_VERB, "did you mean");
	ck_assert_invalid("verb: fs.readRange\narguments:\n  path: a\n  startLine: 1\n  endLine: 2\n  limit: 3\n",
	                  HERMES_E_INVALID_ARGUMENTS, "unknown argument 'limit' for fs.readRange (expected: path, startLine, endLine, includeLineNumbers)");
	ck_assert_str_eq(last_err.field, "arguments.limit");
	ck_assert_invalid("verb: fs.readRange\narguments:\n  path: a\n  endLine: 2\n",
	                  HERMES_E_INVALID_ARGUMENTS, "missing required argument 'startLine' for fs.readRange");
	static const char *const bad_ints[][2] = {
		{ "ten", "got string \"ten\"" }, { "0123", "got number 0123" }, { "0x1F", "got number 0x1F" }, { "\"7\"", "got string \"7\"" },
		{ "3abc", "got string \"3abc\"" }, { "1e3", "got number 1e3" }, { "3.9", "got number 3.9" },
		{ "~", "got null" }, { "true", "got boolean true" }, { "+5", "got number +5" },
	};
	for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "verb: fs.readRange\narguments: {path: a, startLine: %s, endLine: 2}\n",
		         bad_ints[i][0]);
		ck_assert_invalid(text, HERMES_E_INVALID_ARGUMENTS, bad_ints[i][1]);
		ck_assert_str_eq(last_err.field, "arguments.startLine");
	}
	ck_assert_invalid("verb: fs.readRange\narguments: {path: a, startLine: 99999999999, endLine: 2}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "startLine: 99999999999 is out of range for Int32");
	ck_assert_invalid("verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 2, includeLineNumbers: banana}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "includeLineNumbers: expected Boolean, got string \"banana\"");
	ck_assert_invalid("verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 2, includeLineNumbers: yes}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "expected Boolean, got string \"yes\"");
	ck_assert_invalid("verb: fs.readRange\narguments: {path: [a], startLine: 1, endLine: 2}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "path: expected String, got array");
	ck_assert_invalid("verb: proc.run\narguments: {executable: ls, arguments: [a, {x: 1}]}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "expected String, got object");
	ck_assert_invalid("verb: fs.readRange\narguments:\n  path: a\n  path: b\n  startLine: 1\n  endLine: 2\n",
	                  HERMES_E_INVALID_ARGUMENTS, "duplicate key 'path' in arguments");
	ck_assert_invalid("verb: fs.exists\nverb: fs.exists\n", HERMES_E_INVALID_ENVELOPE, "duplicate key 'verb'");
	ck_assert_invalid("verb: fs.exists\nargs: {}\n", HERMES_E_INVALID_ENVELOPE,
	                  "unknown key 'args' in envelope (expected: verb, arguments)");
	ck_assert_invalid("arguments: {path: a}\n", HERMES_E_INVALID_ENVELOPE, "missing \"verb\"");
	ck_assert_invalid("verb: fs.exists\narguments: 5\n", HERMES_E_INVALID_ARGUMENTS,
	                  "arguments: expected an object");
	ck_assert_invalid("- verb: fs.exists\n", HERMES_E_INVALID_ENVELOPE, "must be a mapping");
	ck_assert_invalid("verb: fs.exists\narguments:\n  path: &p a\nx: *p\n", HERMES_E_INVALID_ENVELOPE,
	                  "aliases");
	ck_assert_int_eq(last_err.line, 4);
	ck_assert_invalid("verb: fs.exists\narguments: {path: \"a\\0b\"}\n", HERMES_E_INVALID_ENVELOPE, "NUL");
	ck_assert_invalid("verb: fs.exists\narguments:\n  path: \"unterminated\n", HERMES_E_INVALID_ENVELOPE,
	                  "YAML syntax error");
	ck_assert_int_eq(last_err.line, 4);
	ck_assert_invalid("verb: fs.exists\n  bad: indent\n", HERMES_E_INVALID_ENVELOPE, "YAML syntax error");
	ck_assert_int_eq(last_err.line, 2);
	ck_assert_invalid("# only a comment\n", HERMES_E_INVALID_ENVELOPE, "empty envelope");
	ck_assert_invalid("verb: fs.exists\n---\nverb: fs.exists\n", HERMES_E_INVALID_ENVELOPE,
	                  "more than one YAML document");
	ck_assert_invalid("verb: fs.exists\narguments: {path: \"\xc3\x28\"}\n", HERMES_E_INVALID_ENVELOPE,
	                  "not valid UTF-8");
	char deep[400] = "verb: fs.exists\narguments: {path: ";
	size_t n = strlen(deep);
	memset(deep + n, '[', 70);
	memset(deep + n + 70, ']', 70);
	strcpy(deep + n + 140, "}\n");
	ck_assert_invalid(deep, HERMES_E_INVALID_ENVELOPE, "nesting deeper");
}
END_TEST

START_TEST(decode_yaml_scalars_by_type)
{
	/* One rule with JSON: a plain scalar is what YAML 1.2's core schema makes of it (no is a
	 * string, 0123 a number, ~ null), a quoted one a string, and the field takes only its type. */
	ck_assert_int_eq(run("verb: fs.readRange\narguments: {path: no, startLine: 7, endLine: 1}\n"),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_ptr_nonnull(strstr(last_json, "path=no start=7 end=1 numbers=1"));
	ck_assert_int_eq(run("verb: fs.readRange\narguments: {path: \"0123\", startLine: 5, endLine: 2147483647, includeLineNumbers: false}\n"),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_ptr_nonnull(strstr(last_json, "path=0123 start=5 end=2147483647 numbers=0"));
	ck_assert_invalid("verb: fs.readRange\narguments: {path: 0123, startLine: 5, endLine: 6}\n",
	                  HERMES_E_INVALID_ARGUMENTS, "path: expected String, got number 0123");
	ck_assert_invalid("verb: fs.exists\narguments: {path: !!str 5}\n", HERMES_E_INVALID_ENVELOPE,
	                  "YAML tags");
	ck_assert_invalid("!!map {verb: fs.exists}\n", HERMES_E_INVALID_ENVELOPE, "YAML tags");
	ck_assert_invalid("verb: !custom fs.exists\n", HERMES_E_INVALID_ENVELOPE, "YAML tags");
	/* the table's range of a field (startLine: 1 or more) is the decoder's, in YAML and JSON */
	ck_assert_int_eq(run("verb: fs.writeRange\narguments: {path: a, startLine: 0, content: x}\n"),
	                 HERMES_OUTCOME_INVALID);
	ck_assert_ptr_nonnull(strstr(last_json, "startLine: 0 is out of range: it must be 1 or more"));
	ck_assert_int_eq(run("{\"verb\": \"fs.writeRange\", \"arguments\": {\"path\": \"a\", \"startLine\": -3, \"content\": \"x\"}}"),
	                 HERMES_OUTCOME_INVALID);
	ck_assert_ptr_nonnull(strstr(last_json, "startLine: -3 is out of range: it must be 1 or more"));
	/* null/absent optional fields take their defaults. */
	ck_assert_int_eq(run("verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 1, includeLineNumbers: ~}\n"),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_ptr_nonnull(strstr(last_json, "numbers=1"));
	ck_assert_int_eq(run("verb: fs.writeRange\narguments: {path: a, startLine: 1, endLine: null, content: x}\n"),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_int_eq(run("verb: fs.writeRange\narguments: {path: a, startLine: 1, endLine: 4, content: no}\n"),
	                 HERMES_OUTCOME_FAILED);
	ck_assert_ptr_nonnull(strstr(last_json, "end=4 content=no"));
	/* A missing "arguments" means {}. */
	ck_assert_int_eq(run("verb: sys.machineInfo\n"), HERMES_OUTCOME_SUCCEEDED);
	ck_assert_int_eq(run("{\"verb\":\"sys.machineInfo\"}"), HERMES_OUTCOME_SUCCEEDED);
	ck_assert_int_eq(run("verb: sys.machineInfo\narguments:\n"), HERMES_OUTCOME_SUCCEEDED);
}
END_TEST

/* The same envelope in JSON and in YAML gives byte-identical results, errors included. */
START_TEST(json_yaml_equivalence)
{
	static const char *const pairs[][2] = {
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"src/a.c\",\"startLine\":10,\"endLine\":20}}",
		  "verb: fs.readRange\narguments: {path: src/a.c, startLine: 10, endLine: 20}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"includeLineNumbers\":false}}",
		  "verb: fs.readRange\narguments:\n  path: a\n  startLine: 1\n  endLine: 2\n  includeLineNumbers: false\n" },
		{ "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[\"-l\",\"no\",\"\"]}}",
		  "verb: proc.run\narguments:\n  executable: ls\n  arguments: [\"-l\", no, \"\"]\n" },
		{ "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[],\"timeoutSeconds\":5}}",
		  "verb: proc.run\narguments: {executable: ls, arguments: [], timeoutSeconds: 5}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":\"ten\",\"endLine\":2}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: ten, endLine: 2}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"limit\":3}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 2, limit: 3}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"endLine\":2}}",
		  "verb: fs.readRange\narguments: {path: a, endLine: 2}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"\\u00e9t\\u00e9 \\ud83d\\ude00\"}}",
		  "verb: fs.exists\narguments: {path: \"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80\"}\n" },
		{ "{\"verb\":\"fs.teleport\"}", "verb: fs.teleport\n" },
		/* issue 10, case 15: the cases where the two readers disagreed, one rule for both */
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":null}}", "verb: fs.exists\narguments: {path: null}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":null}}", "verb: fs.exists\narguments: {path: ~}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":null}}", "verb: fs.exists\narguments:\n  path:\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"null\"}}", "verb: fs.exists\narguments: {path: \"null\"}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":5}}", "verb: fs.exists\narguments: {path: 5}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":true}}", "verb: fs.exists\narguments: {path: true}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":1.0}}", "verb: fs.exists\narguments: {path: 1.0}\n" },
		{ "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"5\"}}", "verb: fs.exists\narguments: {path: \"5\"}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1.0,\"endLine\":2}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: 1.0, endLine: 2}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":\"1\",\"endLine\":2}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: \"1\", endLine: 2}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"includeLineNumbers\":\"true\"}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 2, includeLineNumbers: \"true\"}\n" },
		{ "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"endLine\":2,\"includeLineNumbers\":null}}",
		  "verb: fs.readRange\narguments: {path: a, startLine: 1, endLine: 2, includeLineNumbers: ~}\n" },
		{ "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[\"a\",null]}}",
		  "verb: proc.run\narguments: {executable: ls, arguments: [a, null]}\n" },
		{ "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"ls\",\"arguments\":[\"a\",7]}}",
		  "verb: proc.run\narguments: {executable: ls, arguments: [a, 7]}\n" },
		{ "{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"content\":null}}",
		  "verb: fs.writeRange\narguments: {path: a, startLine: 1, content: }\n" },
		{ "{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":\"a\",\"startLine\":1,\"content\":\"\"}}",
		  "verb: fs.writeRange\narguments: {path: a, startLine: 1, content: \"\"}\n" },
		{ "{\"verb\":\"sys.machineInfo\",\"arguments\":{}}", "verb: sys.machineInfo\narguments: {}\n" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char json[8192];
		run(pairs[i][0]);
		snprintf(json, sizeof json, "%s", last_json);
		run(pairs[i][1]);
		ck_assert_msg(strcmp(json, last_json) == 0, "pair %zu differs:\nJSON: %s\nYAML: %s", i, json,
		              last_json);
	}
	/* A lone surrogate is no character: both readers refuse the envelope (each in its own words:
	 * the syntax errors of the two languages). */
	ck_assert_int_eq(run("{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"\\ud800\"}}"), HERMES_OUTCOME_INVALID);
	ck_assert_ptr_nonnull(strstr(last_json, "InvalidEnvelope"));
	ck_assert_int_eq(run("verb: fs.exists\narguments: {path: \"\\ud800\"}\n"), HERMES_OUTCOME_INVALID);
	ck_assert_ptr_nonnull(strstr(last_json, "InvalidEnvelope"));
	ck_assert_int_eq(run("verb: fs.exists\narguments: {path: \"\xed\xa0\x80\"}\n"), HERMES_OUTCOME_INVALID);
	ck_assert_ptr_nonnull(strstr(last_json, "InvalidEnvelope"));
}
END_TEST

START_TEST(decode_struct_fields)
{
	hermes_error_t err;
	const hermes_verb_desc_t *v = hermes_verb_desc_find("fs.writeRange");
	hermes_json_doc_t *j;
	const char *text = "{\"path\":\"p\",\"startLine\":3,\"content\":\"c\"}";
	hermes_fs_write_range_args_t *a =
		hermes_decode_json_args(v->args, tree(text, strlen(text), &j), text, v->name, "", &err);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->path, "p");
	ck_assert_int_eq(a->start_line, 3);
	ck_assert(!a->has_end_line);
	hermes_fs_write_range_args_free(a);
	hermes_fs_write_range_args_free(NULL);
	hermes_json_doc_free(j);
	/* Bare arguments (as the server passes them) name the field without a prefix, and the
	 * error points at the value. */
	text = "{\"path\":\"p\",\n \"startLine\":true,\"content\":\"c\"}";
	ck_assert_ptr_null(hermes_decode_json_args(v->args, tree(text, strlen(text), &j), text,
	                                           v->name, "", &err));
	ck_assert_str_eq(err.field, "startLine");
	ck_assert_int_eq(err.line, 2);
	ck_assert_int_eq(err.column, 14);
	hermes_json_doc_free(j);
	void *args = NULL;
	const char *y = "verb: fs.writeRange\narguments: {path: p, startLine: 3, endLine: 4, content: \"\"}\n";
	v = hermes_decode_yaml_envelope(y, strlen(y), &args, &err);
	ck_assert_ptr_nonnull(v);
	a = args;
	ck_assert(a->has_end_line);
	ck_assert_int_eq(a->end_line, 4);
	ck_assert_str_eq(a->content, "");
	hermes_fs_write_range_args_free(a);
}
END_TEST

/* ---- encoding ------------------------------------------------------------------------------ */

START_TEST(encode_results)
{
	ck_assert_int_eq(run("{\"verb\":\"sys.machineInfo\"}"), HERMES_OUTCOME_SUCCEEDED);
	ck_assert_str_eq(last_json,
	                 "{\"operatingSystem\":\"Bad\xef\xbf\xbd\xef\xbf\xbdOS \\\"quoted\\\"\\n\\u0001\","
	                 "\"cpuCount\":-2147483648,\"totalMemoryBytes\":9223372036854775807,"
	                 "\"disks\":[{\"name\":\"/\",\"totalBytes\":-9223372036854775808,\"freeBytes\":0},"
	                 "{\"name\":\"/\xc3\xa9t\xc3\xa9\",\"totalBytes\":9007199254740993,\"freeBytes\":1}],"
	                 "\"succeeded\":true,\"errorMessage\":null,\"errorCode\":null}");
	/* A failure leaves the result's own fields out... */
	ck_assert_int_eq(run("{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"x\\\"y\"}}"), HERMES_OUTCOME_FAILED);
	ck_assert_str_eq(last_json, "{\"succeeded\":false,\"errorMessage\":\"cannot test 'x\\\"y': no such file\","
	                            "\"errorCode\":\"NotFound\"}");
	/* ...unless they still mean something. */
	ck_assert_int_eq(run("{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"e\",\"arguments\":[\"a\",\"b\"],\"timeoutSeconds\":1}}"),
	                 HERMES_OUTCOME_FAILED);
	ck_assert_str_eq(last_json, "{\"exitCode\":2,\"stdoutPath\":\"a|b\",\"stderrPath\":\"e\","
	                            "\"outputBytesOmitted\":0,\"succeeded\":false,\"errorMessage\":\"timed out after 1 s\",\"errorCode\":\"Timeout\"}");
}
END_TEST

START_TEST(encode_pretty)
{
	hermes_executor_t *ex = stub_executor();
	char *out = NULL;
	const char *env = "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"e\",\"arguments\":[]}}";
	ck_assert_int_eq(hermes_execute(ex, env, strlen(env), HERMES_JSON_PRETTY, NULL, &out, NULL),
	                 HERMES_OUTCOME_SUCCEEDED);
	ck_assert_str_eq(out, "{\n  \"exitCode\": 0,\n  \"stdoutPath\": \"\",\n  \"stderrPath\": \"e\",\n"
	                      "  \"outputBytesOmitted\": 0,\n  \"succeeded\": true,\n  \"errorMessage\": null,\n  \"errorCode\": null\n}");
	free(out);
	hermes_error_t err;
	hermes_error_set(&err, HERMES_E_INVALID_ENVELOPE, "bad");
	out = hermes_error_result_json(&err, HERMES_JSON_PRETTY);
	ck_assert_str_eq(out, "{\n  \"succeeded\": false,\n  \"errorMessage\": \"bad\",\n  \"errorCode\": \"InvalidEnvelope\"\n}");
	free(out);
	hermes_executor_free(ex);
}
END_TEST

/* ---- IDL ------------------------------------------------------------------------------------- */

static char *strip_comments(const char *idl)
{
	char *out = malloc(strlen(idl) + 1), *o = out;
	for (const char *p = idl; *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
		const char *q = p;
		while (*q == ' ')
			q++;
		if (strncmp(q, "//", 2) != 0) {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	return out;
}

START_TEST(idl_read_range)
{
	char *idl = hermes_idl_for_verb(hermes_verb_desc_find("fs.readRange"));
	char *bare = strip_comments(idl);
	ck_assert_str_eq(bare, "type FsReadRangeArgs\n{\n  path: String\n  startLine: Int32\n  endLine: Int32\n"
	                       "  includeLineNumbers?: Boolean\n}\ntype FsReadRangeResult\n{\n  content: String\n"
	                       "  firstLine?: Int64\n  reachedEnd: Boolean\n  version: String\n"
	                       "  succeeded?: Boolean\n  errorMessage?: String\n  errorCode?: String\n}\n");
	ck_assert_ptr_nonnull(strstr(idl, "// Arguments of fs.readRange"));
	ck_assert_ptr_nonnull(strstr(idl, "  // first line to return, counting from 1; a negative number"));
	/* a narrowed range shows in the comment */
	char *w = hermes_idl_for_verb(hermes_verb_desc_find("fs.writeRange"));
	ck_assert_ptr_nonnull(strstr(w, "lineCount + 1 appends; range: 1 or more\n  startLine: Int32\n"));
	free(w);
	free(bare);
	free(idl);
}
END_TEST

START_TEST(idl_nested_once)
{
	char *idl = hermes_idl_for_verb(hermes_verb_desc_find("sys.machineInfo"));
	char *bare = strip_comments(idl);
	ck_assert_str_eq(bare, "type SysMachineInfoArgs\n{\n}\ntype SysMachineInfoResult\n{\n  operatingSystem: String\n"
	                       "  cpuCount: Int32\n  totalMemoryBytes: Int64\n  disks: DiskInfo[]\n  succeeded?: Boolean\n"
	                       "  errorMessage?: String\n  errorCode?: String\n}\ntype DiskInfo\n{\n  name: String\n"
	                       "  totalBytes: Int64\n  freeBytes: Int64\n}\n");
	free(bare);
	free(idl);
	idl = hermes_idl_for_verb(hermes_verb_desc_find("proc.run"));
	ck_assert_ptr_nonnull(strstr(idl, "  arguments?: String[]\n"));
	ck_assert_ptr_nonnull(strstr(idl, "  timeoutSeconds?: Int32\n"));
	free(idl);
}
END_TEST

/* Traits come from the table: the descriptors carry them and the IDL opens with them. */
START_TEST(idl_traits)
{
	const hermes_verb_desc_t *d = hermes_verb_desc_find("fs.readRange");
	ck_assert_uint_eq(d->traits, HERMES_TRAIT_READ_ONLY | HERMES_TRAIT_IDEMPOTENT);
	char *idl = hermes_idl_for_verb(d);
	ck_assert_ptr_eq(strstr(idl, "// traits: read-only, idempotent\n// Arguments of fs.readRange"), idl);
	free(idl);
	d = hermes_verb_desc_find("proc.run");
	ck_assert_uint_eq(d->traits, HERMES_TRAIT_DESTRUCTIVE | HERMES_TRAIT_SPAWNS | HERMES_TRAIT_LONG);
	idl = hermes_idl_for_verb(d);
	ck_assert_ptr_eq(strstr(idl, "// traits: destructive, spawns, long\n"), idl);
	free(idl);
	d = hermes_verb_desc_find("fs.moveFile");
	ck_assert_uint_eq(d->traits, 0);
	idl = hermes_idl_for_verb(d);
	ck_assert_ptr_eq(strstr(idl, "// traits: none\n"), idl);
	free(idl);
	const unsigned all = HERMES_TRAIT_READ_ONLY | HERMES_TRAIT_DESTRUCTIVE | HERMES_TRAIT_IDEMPOTENT |
	                     HERMES_TRAIT_SPAWNS | HERMES_TRAIT_LONG | HERMES_TRAIT_INSTANT;
	for (size_t i = 0; i < hermes_verb_desc_count; i++) {
		unsigned t = hermes_verb_descs[i].traits;
		ck_assert_msg((t & ~all) == 0, "%s: unknown trait bits", hermes_verb_descs[i].name);
		ck_assert_msg((t & HERMES_TRAIT_READ_ONLY) == 0 || (t & HERMES_TRAIT_DESTRUCTIVE) == 0,
		              "%s: read-only and destructive", hermes_verb_descs[i].name);
		ck_assert_msg((t & HERMES_TRAIT_LONG) == 0 || (t & HERMES_TRAIT_INSTANT) == 0,
		              "%s: long and instant", hermes_verb_descs[i].name);
	}
}
END_TEST

/* ---- documents ------------------------------------------------------------------------------ */

static int split(const char *text, const char **docs, size_t *lens, int *lines, int max)
{
	hermes_doc_splitter_t s;
	int n = 0;
	hermes_doc_splitter_init(&s, text, strlen(text));
	while (n < max && hermes_doc_next(&s, &docs[n], &lens[n], &lines[n], NULL))
		n++;
	return n;
}

START_TEST(documents_split)
{
	const char *d[8];
	size_t l[8];
	int line[8];
	ck_assert_int_eq(split(" {\"a\":1}\n{\"b\":\n2}  {}\n", d, l, line, 8), 3);
	ck_assert_int_eq((int)l[0], 7);
	ck_assert_int_eq(line[1], 2);
	ck_assert_int_eq(line[2], 3);
	ck_assert_int_eq(strncmp(d[2], "{}", l[2]), 0);
	ck_assert_int_eq(split("{\"a\":1} oops {\"b\":2}", d, l, line, 8), 2);
	ck_assert_str_eq(d[1], "oops {\"b\":2}");
	ck_assert_int_eq(split("---\na: 1\n---\n# nothing\n---\nb: 2\n...\n\nc: 3\n--- {d: 4}\n", d, l, line, 8), 4);
	ck_assert_int_eq(line[0], 1);
	ck_assert_int_eq(line[1], 5);
	ck_assert_int_eq(strncmp(d[1], "---\nb: 2\n", l[1]), 0);
	ck_assert_int_eq(line[2], 8);
	ck_assert_int_eq(strncmp(d[3], "--- {d: 4}\n", l[3]), 0);
	ck_assert_int_eq(split("a: |\n  text\n  ----\n---x: 1\n", d, l, line, 8), 1);
	ck_assert_int_eq(split("\n\n  \n", d, l, line, 8), 0);
	ck_assert_int_eq(split("%YAML 1.2\n---\na: 1\n---\nb: 2\n", d, l, line, 8), 2);
	ck_assert_int_eq(strncmp(d[0], "%YAML 1.2\n---\na: 1\n", l[0]), 0);
	ck_assert_int_eq(hermes_detect_format("\xef\xbb\xbf {", 5), HERMES_FORMAT_JSON);
	ck_assert_int_eq(hermes_detect_format("[1]", 3), HERMES_FORMAT_YAML);
}
END_TEST

/* ---- cancellation ---------------------------------------------------------------------------- */

START_TEST(cancel_token)
{
	hermes_cancel_t *c = hermes_cancel_new();
	ck_assert_ptr_nonnull(c);
	struct pollfd p = { .fd = hermes_cancel_fd(c), .events = POLLIN };
	ck_assert(!hermes_cancel_requested(c));
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	hermes_cancel_request(c);
	hermes_cancel_request(c);
	ck_assert(hermes_cancel_requested(c));
	ck_assert_int_eq(poll(&p, 1, 0), 1);
	ck_assert_int_eq(fcntl(p.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	hermes_cancel_free(c);
	hermes_cancel_free(NULL);
	ck_assert(!hermes_cancel_requested(NULL));
}
END_TEST

START_TEST(errcode_names)
{
	ck_assert_str_eq(hermes_errcode_name(HERMES_E_NOT_FOUND), "NotFound");
	ck_assert_str_eq(hermes_errcode_name(HERMES_E_OUTSIDE_WORKSPACE), "OutsideWorkspace");
	ck_assert_str_eq(hermes_errcode_name(HERMES_E_INVALID_ARGUMENTS), "InvalidArguments");
	ck_assert_ptr_null(hermes_errcode_name(HERMES_E_NONE));
	ck_assert_ptr_null(hermes_errcode_name(HERMES_E__COUNT));
	ck_assert_str_eq(hermes_version(), PACKAGE_VERSION);
}
END_TEST

START_TEST(instance_handles)
{
	ck_assert(hermes_instance_valid("a-1"));
	ck_assert(!hermes_instance_valid("A"));
	ck_assert(!hermes_instance_valid(""));
	ck_assert(!hermes_instance_valid(NULL));
	hermes_handles_t h, other;
	hermes_handles_init(&h, "node-7");
	hermes_handles_init(&other, "Not Valid"); /* the default name instead */
	ck_assert(hermes_instance_valid(other.instance));
	char a[HERMES_HANDLE_MAX], b[HERMES_HANDLE_MAX], owner[HERMES_INSTANCE_MAX + 1];
	hermes_handles_mint(&h, 'w', a, sizeof a);
	hermes_handles_mint(&h, 'w', b, sizeof b);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(strncmp(a, "node-7.w1-", 10), 0);
	ck_assert_int_eq(strlen(a), strlen("node-7.w1-") + 6);
	ck_assert_int_eq(strncmp(b, "node-7.w2-", 10), 0);
	ck_assert_str_eq(a + 10, b + 10); /* one tag a table */
	ck_assert(!hermes_handle_elsewhere(a, "node-7", owner, sizeof owner));
	ck_assert(hermes_handle_elsewhere(a, "node-8", owner, sizeof owner));
	ck_assert_str_eq(owner, "node-7");
	ck_assert(!hermes_handle_elsewhere("no handle", "node-8", owner, sizeof owner));
	ck_assert(!hermes_handle_elsewhere(".w1-000000", "node-8", owner, sizeof owner));
	ck_assert(!hermes_handle_elsewhere("UP.w1-000000", "node-8", owner, sizeof owner));
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	struct { const char *name; const TTest *tests[12]; } cases[] = {
		{ "json", { scan_valid, scan_invalid, scan_positions, scan_depth, json_strings_carry_length,
		            json_integers, json_repeated_keys, scan_json_test_suite } },
		{ "utf8", { utf8_validation } },
		{ "registry", { registry_rules, errcode_names } },
		{ "decode", { decode_json_errors, decode_yaml_errors, decode_yaml_scalars_by_type,
		              json_yaml_equivalence, decode_struct_fields } },
		{ "encode", { encode_results, encode_pretty } },
		{ "idl", { idl_read_range, idl_nested_once, idl_traits } },
		{ "documents", { documents_split, cancel_token } },
		{ "instance", { instance_handles } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		TCase *tc = tcase_create(cases[i].name);
		for (size_t j = 0; j < 12 && cases[i].tests[j]; j++)
			_tcase_add_test(tc, cases[i].tests[j], 0, 0, 0, 1);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	int failed = check_run(core_suite());
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
