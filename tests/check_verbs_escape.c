/* tests/check_verbs_escape.c: the workspace wall. Every route out of the root (.., absolute
 * paths, //, symlinks to files, directories and nowhere, a sibling sharing the root's prefix, NUL
 * bytes, over-long paths, a component swapped for a symlink while requests run) against every
 * verb that takes a path, in both resolvers (openat2 and the descriptor walk). Each attempt must
 * fail with OutsideWorkspace (NUL: the envelope is refused) and change nothing anywhere. */
#include <config.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs_testlib.h"

static char routes[32][8192];
static size_t route_count;

static void add_route(const char *fmt, const char *arg)
{
	snprintf(routes[route_count++], sizeof routes[0], fmt, arg);
}

/* The world the escapes aim at, and the routes to it. */
static void build_world(void)
{
	vt_put("outside/secret.txt", "secret\n");
	vt_mkdir("outside/dir");
	vt_put("ws-evil/x.txt", "evil\n");
	vt_put("ws/ok.txt", "ok\n");
	vt_mkdir("ws/sub");
	vt_symlink("../outside/secret.txt", "ws/lnk_file");
	vt_symlink(vt_path("outside/secret.txt"), "ws/lnk_file_abs");
	vt_symlink("../outside", "ws/lnk_dir");
	vt_symlink(vt_path("outside"), "ws/lnk_dir_abs");
	vt_symlink("../outside/nonexistent", "ws/lnk_dangling");
	vt_symlink(vt_path("outside/nonexistent"), "ws/lnk_dangling_abs");
	vt_symlink("../lnk_dir", "ws/sub/inner"); /* an in-root link to a link that leaves */
	route_count = 0;
	add_route("%s", "../outside/secret.txt");
	add_route("%s", "sub/../../outside/secret.txt");
	add_route("%s", "..");
	add_route("%s", "../ws-evil/x.txt");
	add_route("%s/outside/secret.txt", vt.base);
	add_route("/%s/outside/secret.txt", vt.base); /* "//tmp/..." */
	add_route("%s", "sub//..//..//outside/secret.txt");
	add_route("%s", "/");
	add_route("%s", "/etc/passwd");
	add_route("%s", "lnk_file");
	add_route("%s", "lnk_file_abs");
	add_route("%s", "lnk_dir");
	add_route("%s", "lnk_dir/secret.txt");
	add_route("%s", "lnk_dir_abs/secret.txt");
	add_route("%s", "lnk_dir/newfile");
	add_route("%s", "sub/inner/secret.txt");
	add_route("%s", "lnk_dangling");
	add_route("%s", "lnk_dangling_abs");
	add_route("%s/ws-evil/x.txt", vt.base);
	add_route("%s/ws-evil", vt.base);
	add_route("%s/ws/../outside/secret.txt", vt.base);
	/* absolute, written under the root, leaving through a link (proc.run too must refuse these) */
	add_route("%s/ws/lnk_dir_abs/secret.txt", vt.base);
	add_route("%s/ws/lnk_file_abs", vt.base);
	/* Over-long: the whole path, and one component. */
	char *p = routes[route_count++];
	size_t n = 0;
	while (n < 4200)
		n += (size_t)sprintf(p + n, "a/");
	strcpy(p + n, "x");
	memset(routes[route_count], 'n', 300);
	routes[route_count++][300] = '\0';
}

/* Every verb call that puts `route` in a path slot, as JSON envelopes. */
static int envelopes(const char *route, char out[][9000])
{
	cJSON *q = cJSON_CreateString(route);
	char *r = cJSON_PrintUnformatted(q);
	cJSON_Delete(q);
	char exe[8300];
	snprintf(exe, sizeof exe, "%s%s", strchr(route, '/') ? "" : "./", route);
	q = cJSON_CreateString(exe);
	char *e = cJSON_PrintUnformatted(q);
	cJSON_Delete(q);
	int k = 0;
	const char *single[] = {"fs.exists", "fs.readFile", "fs.lineCount", "fs.listDir", "fs.deleteFile",
	                        "fs.createDirectory", "fs.deleteDirectory"};
	for (size_t i = 0; i < sizeof single / sizeof *single; i++)
		snprintf(out[k++], 9000, "{\"verb\":\"%s\",\"arguments\":{\"path\":%s}}", single[i], r);
	snprintf(out[k++], 9000,
	         "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":%s,\"startLine\":1,\"endLine\":9}}", r);
	snprintf(out[k++], 9000,
	         "{\"verb\":\"fs.writeFile\",\"arguments\":{\"path\":%s,\"content\":\"pwned\"}}", r);
	snprintf(out[k++], 9000,
	         "{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":%s,\"startLine\":1,\"content\":\"pwned\"}}", r);
	snprintf(out[k++], 9000,
	         "{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":%s,\"startLine\":1,\"endLine\":1,\"content\":\"pwned\"}}", r);
	const char *pairs[] = {"fs.moveFile", "fs.copyFile"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(out[k++], 9000,
		         "{\"verb\":\"%s\",\"arguments\":{\"sourcePath\":%s,\"destinationPath\":\"taken.txt\"}}",
		         pairs[i], r);
		snprintf(out[k++], 9000,
		         "{\"verb\":\"%s\",\"arguments\":{\"sourcePath\":\"ok.txt\",\"destinationPath\":%s}}",
		         pairs[i], r);
	}
	/* An absolute path written outside the root names a program of the system (like one in
	 * PATH), so only the others are escape attempts for proc.run. */
	size_t rl = strlen(vt.base) + 3;
	bool system = route[0] == '/' && !(strncmp(route, vt.base, strlen(vt.base)) == 0 &&
	                                   strncmp(route + strlen(vt.base), "/ws", 3) == 0 &&
	                                   (route[rl] == '/' || route[rl] == '\0'));
	if (!system)
		snprintf(out[k++], 9000,
		         "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":%s,\"arguments\":[]}}", e);
	free(r);
	free(e);
	return k;
}

static void every_route_every_verb(void)
{
	build_world();
	char *before = vt_snapshot(".");
	static char env[32][9000];
	int attempts = 0;
	for (size_t i = 0; i < route_count; i++) {
		int n = envelopes(routes[i], env);
		for (int j = 0; j < n; j++) {
			cJSON *r = vt_exec("%s", env[j]);
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
			ck_assert_msg(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "succeeded")) &&
			              cJSON_IsString(c) && strcmp(c->valuestring, "OutsideWorkspace") == 0,
			              "route '%.80s' in %.160s: %s", routes[i], env[j], cJSON_PrintUnformatted(r));
			char *now = vt_snapshot(".");
			ck_assert_msg(strcmp(before, now) == 0, "route '%.80s' in %.160s changed something:\n%s",
			              routes[i], env[j], now);
			free(now);
			attempts++;
		}
	}
	ck_assert_int_gt(attempts, 300);
	free(before);
}

START_TEST(escape_openat2)
{
	every_route_every_verb();
}
END_TEST

START_TEST(escape_descriptor_walk)
{
	setenv("HERMES_TEST_NO_OPENAT2", "1", 1);
	vt_reopen(NULL);
	every_route_every_verb();
	unsetenv("HERMES_TEST_NO_OPENAT2");
}
END_TEST

START_TEST(escape_nul_bytes)
{
	build_world();
	char *before = vt_snapshot(".");
	const char *paths[] = {"ok.txt\\u0000/../../outside/secret.txt", "\\u0000", "ok.txt\\u0000"};
	const char *verbs[] = {"fs.readFile", "fs.writeFile", "fs.deleteFile", "fs.exists"};
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 4; j++) {
			cJSON *r = vt_exec("{\"verb\":\"%s\",\"arguments\":{\"path\":\"%s\",\"content\":\"x\"}}",
			                   verbs[j], paths[i]);
			vt_err(r, "InvalidArguments", "NUL"); /* names the field: path */
		}
	/* The same in YAML ("\0" in a double-quoted scalar). */
	const char *yaml = "verb: fs.writeFile\narguments:\n  path: \"ok.txt\\0/../../outside/x\"\n  content: x\n";
	vt_err(vt_exec("%s", yaml), "InvalidEnvelope", NULL);
	char *now = vt_snapshot(".");
	ck_assert_str_eq(before, now);
	free(now);
	free(before);
}
END_TEST

START_TEST(inside_routes_still_work)
{
	/* What looks like an escape but stays inside is fine. */
	build_world();
	vt_symlink("../ok.txt", "ws/sub/up");
	vt_symlink(vt_path("ws/sub"), "ws/abs_sub");
	const char *ok[] = {"sub/../ok.txt", "./ok.txt", "sub//..//ok.txt", "sub/up", "abs_sub/up",
	                    "abs_sub/../ok.txt"};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		cJSON *r = vt_call("fs.readFile", vt_args("path", ok[i], NULL));
		vt_ok(r);
		ck_assert_str_eq(vt_str(r, "content"), "ok\n");
	}
	char abs[8300];
	snprintf(abs, sizeof abs, "%s/ws//sub/../ok.txt", vt.base);
	vt_ok(vt_call("fs.readFile", vt_args("path", abs, NULL)));
}
END_TEST

START_TEST(root_through_symlink_and_slash)
{
	build_world();
	vt_symlink("ws", "rootlink");
	char root[8300];
	snprintf(root, sizeof root, "%s/rootlink", vt.base);
	hermes_executor_t *ex;
	hermes_config_t c = {.root = root};
	ck_assert_int_eq(hermes_executor_new(&c, &ex, NULL), 0);
	ck_assert_str_eq(hermes_executor_root(ex), vt.root);
	hermes_executor_free(vt.ex);
	vt.ex = ex;
	/* Absolute paths through either spelling of the root are inside. */
	char p[8300];
	snprintf(p, sizeof p, "%s/rootlink/ok.txt", vt.base);
	vt_ok(vt_call("fs.readFile", vt_args("path", p, NULL)));
	snprintf(p, sizeof p, "%s/ws/ok.txt", vt.base);
	vt_ok(vt_call("fs.readFile", vt_args("path", p, NULL)));
	snprintf(p, sizeof p, "%s/rootlink-evil/ok.txt", vt.base);
	vt_err(vt_call("fs.readFile", vt_args("path", p, NULL)), "OutsideWorkspace", NULL);
	/* --root / opts out: everything is inside. */
	c.root = "/";
	ck_assert_int_eq(hermes_executor_new(&c, &ex, NULL), 0);
	hermes_executor_free(vt.ex);
	vt.ex = ex;
	snprintf(p, sizeof p, "%s/outside/secret.txt", vt.base);
	cJSON *r = vt_call("fs.readFile", vt_args("path", p, NULL));
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "content"), "secret\n");
	vt_ok(vt_call("fs.readFile", vt_args("path", p + 1, NULL)));
	snprintf(p, sizeof p, "%s/outside/new.txt", vt.base);
	vt_ok(vt_call("fs.writeFile", vt_args("path", p, "content", "allowed", NULL)));
	vt_err(vt_call("fs.deleteDirectory", vt_args("path", "/", NULL)), "InvalidArgument", "root");
	vt_err(vt_call("fs.readFile", vt_args("path", "/..", NULL)), "IsADirectory", NULL);
	/* A root that is not a directory, or missing, is refused at creation. */
	hermes_error_t err;
	c.root = p;
	ck_assert_int_eq(hermes_executor_new(&c, &ex, &err), -1);
	snprintf(p, sizeof p, "%s/no-such-dir", vt.base);
	c.root = p;
	ck_assert_int_eq(hermes_executor_new(&c, &ex, &err), -1);
	ck_assert(strstr(err.message, "no-such-dir") != NULL);
}
END_TEST

/* --root given as "link/.." where link points elsewhere: the root is the directory above link's
 * target, and an absolute path spelled from the root as given (which lexically names the
 * directory holding link) is not inside it, so it never reads the other file of the same name. */
START_TEST(root_dotdot_after_symlink)
{
	build_world();
	vt_mkdir("elsewhere");
	vt_mkdir("elsewhere/inner");
	vt_put("elsewhere/secret.txt", "elsewhere\n");
	vt_put("ws/secret.txt", "ws\n");
	vt_symlink(vt_path("elsewhere/inner"), "ws/link");
	char root[8300], p[8300];
	snprintf(root, sizeof root, "%s/ws/link/..", vt.base);
	hermes_executor_t *ex;
	hermes_config_t c = {.root = root};
	ck_assert_int_eq(hermes_executor_new(&c, &ex, NULL), 0);
	ck_assert_str_eq(hermes_executor_root(ex), vt_path("elsewhere"));
	hermes_executor_free(vt.ex);
	vt.ex = ex;
	cJSON *r = vt_call("fs.readFile", vt_args("path", "secret.txt", NULL));
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "content"), "elsewhere\n");
	/* ROOT_AS_GIVEN/secret.txt, lexically base/ws/secret.txt: not the root's file */
	snprintf(p, sizeof p, "%s/ws/secret.txt", vt.base);
	vt_err(vt_call("fs.readFile", vt_args("path", p, NULL)), "OutsideWorkspace", NULL);
	vt_err(vt_call("fs.writeFile", vt_args("path", p, "content", "x", NULL)), "OutsideWorkspace",
	       NULL);
	char *kept = vt_get("elsewhere/secret.txt", NULL);
	ck_assert_str_eq(kept, "elsewhere\n");
	free(kept);
	/* the physical root, and a spelling that resolves to it, are inside */
	snprintf(p, sizeof p, "%s/elsewhere/secret.txt", vt.base);
	r = vt_call("fs.readFile", vt_args("path", p, NULL));
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "content"), "elsewhere\n");
	vt_symlink(vt_path("elsewhere"), "alias");
	snprintf(root, sizeof root, "%s/alias/.", vt.base);
	c.root = root;
	ck_assert_int_eq(hermes_executor_new(&c, &ex, NULL), 0);
	hermes_executor_free(vt.ex);
	vt.ex = ex;
	snprintf(p, sizeof p, "%s/alias/secret.txt", vt.base);
	r = vt_call("fs.readFile", vt_args("path", p, NULL));
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "content"), "elsewhere\n");
}
END_TEST

/* ---- a component swapped for a symlink while requests run --------------------------------- */

static atomic_int swapping; /* atomic: the swapper thread reads it */

static void *swapper(void *arg)
{
	(void)arg;
	char a[8300], b[8300];
	snprintf(a, sizeof a, "%s/ws/sub", vt.base);
	snprintf(b, sizeof b, "%s/ws/swap", vt.base);
	while (swapping)
		renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	return NULL;
}

START_TEST(escape_race)
{
	build_world();
	vt_symlink("../outside", "ws/swap");
	char *before = vt_snapshot("outside");
	pthread_t t;
	swapping = 1;
	ck_assert_int_eq(pthread_create(&t, NULL, swapper, NULL), 0);
	int inside = 0, refused = 0;
	for (int i = 0; i < 3000; i++) {
		const char *env = i % 3 == 0 ? "{\"verb\":\"fs.writeFile\",\"arguments\":{\"path\":\"sub/f.txt\",\"content\":\"x\"}}"
		                : i % 3 == 1 ? "{\"verb\":\"fs.createDirectory\",\"arguments\":{\"path\":\"sub/newdir\"}}"
		                             : "{\"verb\":\"fs.readFile\",\"arguments\":{\"path\":\"sub/secret.txt\"}}";
		cJSON *r = vt_exec("%s", env);
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded"))) {
			inside++;
			const cJSON *content = cJSON_GetObjectItemCaseSensitive(r, "content");
			ck_assert_msg(!cJSON_IsString(content) || strcmp(content->valuestring, "secret\n") != 0,
			              "read the secret through a swapped component");
		} else {
			ck_assert_msg(cJSON_IsString(c) && (strcmp(c->valuestring, "OutsideWorkspace") == 0 ||
			                                    strcmp(c->valuestring, "NotFound") == 0),
			              "unexpected %s", cJSON_PrintUnformatted(r));
			refused++;
		}
	}
	swapping = 0;
	pthread_join(t, NULL);
	char *after = vt_snapshot("outside");
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(inside + refused, 3000);
	free(before);
	free(after);
}
END_TEST

/* ---- chains of symlinks ------------------------------------------------------------------- */

/* links chained 1..n inside ws, relative or absolute, ending at the directory d0 (holding x). */
static void build_chain(const char *kind, int n, bool absolute)
{
	char name[64], prev[64], target[8300];
	snprintf(prev, sizeof prev, "%s0", kind);
	vt_put("ws/chain/x", "end\n");
	snprintf(name, sizeof name, "ws/%s0", kind);
	vt_symlink("chain", name);
	for (int i = 1; i <= n; i++) {
		snprintf(name, sizeof name, "ws/%s%d", kind, i);
		if (absolute)
			snprintf(target, sizeof target, "%s/ws/%s", vt.base, prev);
		else
			snprintf(target, sizeof target, "%s", prev);
		vt_symlink(target, name);
		snprintf(prev, sizeof prev, "%s%d", kind, i);
	}
}

/* The kernel follows at most 40 links in one lookup; so does the workspace, in both resolvers and
 * for links written relative or absolute. Within the limit a request costs one pass over the chain
 * (the suite's timeout catches a resolver that re-walks from the root at every link: it took
 * 18.5 s a request); past it the error says why. */
static void chains(void)
{
	build_chain("r", 41, false);
	build_chain("a", 41, true);
	const char *kinds[] = {"r", "a"};
	for (size_t k = 0; k < 2; k++) {
		char p[64];
		/* r0 is one link, so rN is N+1 links: r39 is 40 (the limit), r40 is 41. */
		for (int i = 0; i < 200; i++) {
			snprintf(p, sizeof p, "%s39/x", kinds[k]);
			cJSON *r = vt_call("fs.readFile", vt_args("path", p, NULL));
			vt_ok(r);
			ck_assert_str_eq(vt_str(r, "content"), "end\n");
		}
		const char *verbs[] = {"fs.readFile", "fs.writeFile", "fs.lineCount", "fs.listDir"};
		for (size_t v = 0; v < 4; v++) {
			snprintf(p, sizeof p, v == 3 ? "%s40" : "%s40/x", kinds[k]);
			cJSON *a = v == 1 ? vt_args("path", p, "content", "y", NULL) : vt_args("path", p, NULL);
			cJSON *r = vt_call(verbs[v], a);
			vt_err(r, "InvalidArgument", "too many levels of symbolic links");
		}
	}
	char *x = vt_get("ws/chain/x", NULL);
	ck_assert_str_eq(x, "end\n");
	free(x);
}

START_TEST(symlink_chains_openat2)
{
	chains();
}
END_TEST

START_TEST(symlink_chains_descriptor_walk)
{
	setenv("HERMES_TEST_NO_OPENAT2", "1", 1);
	vt_reopen(NULL);
	chains();
	unsetenv("HERMES_TEST_NO_OPENAT2");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-escape");
	TCase *tc = tcase_create("escape");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, escape_openat2);
	tcase_add_test(tc, escape_descriptor_walk);
	tcase_add_test(tc, escape_nul_bytes);
	tcase_add_test(tc, inside_routes_still_work);
	tcase_add_test(tc, root_through_symlink_and_slash);
	tcase_add_test(tc, root_dotdot_after_symlink);
	tcase_add_test(tc, escape_race);
	tcase_add_test(tc, symlink_chains_openat2);
	tcase_add_test(tc, symlink_chains_descriptor_walk);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
