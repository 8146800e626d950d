/* tests/verbs_testlib.c: fixtures and helpers of the verbs suites (see verbs_testlib.h). */
#include <config.h>

#include "verbs_testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_run.h"

vt_t vt;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void vt_rmtree(const char *abs)
{
	/* Make everything writable first (tests drop permissions), then remove depth first. */
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null", abs);
	(void)!system(cmd);
	nftw(abs, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void open_executor(const hermes_config_t *config)
{
	vt.config = config ? *config : (hermes_config_t){0};
	vt.config.root = vt.root;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	int rc = hermes_executor_new(&vt.config, &vt.ex, &err);
	ck_assert_msg(rc == 0, "hermes_executor_new: %s", err.message);
}

/* The directory of this run: each test's workspace is made in it, and vt_run removes it at the
 * end, even after tests whose failed assertion ended their process before the teardown. */
static char run_dir[4096];

void vt_setup(void)
{
	memset(&vt, 0, sizeof vt);
	const char *tmp = getenv("TMPDIR");
	if (run_dir[0])
		snprintf(vt.base, sizeof vt.base, "%s/test-XXXXXX", run_dir);
	else
		snprintf(vt.base, sizeof vt.base, "%s/hermes-verbs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(vt.base));
	snprintf(vt.root, sizeof vt.root, "%s/ws", vt.base);
	ck_assert_int_eq(mkdir(vt.root, 0755), 0);
	chmod(vt.base, 0755);
	open_executor(NULL);
	vt.fds = count_fds();
}

void vt_reopen(const hermes_config_t *config)
{
	hermes_executor_free(vt.ex);
	vt.ex = NULL;
	open_executor(config);
}

void vt_teardown(void)
{
	/* Every verb, failed or not, closes what it opened. */
	int fds = count_fds();
	ck_assert_msg(fds == vt.fds, "descriptors leaked: %d open after the test, %d before", fds,
	              vt.fds);
	cJSON_Delete(vt.last);
	vt.last = NULL;
	hermes_executor_free(vt.ex);
	vt.ex = NULL;
	if (vt.base[0])
		vt_rmtree(vt.base);
	vt.base[0] = '\0';
}

static cJSON *exec_text(const char *text)
{
	char *json = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_execute(vt.ex, text, strlen(text), 0, NULL, &json, &err);
	ck_assert_msg(json != NULL, "no result for %s", text);
	cJSON_Delete(vt.last);
	vt.last = cJSON_Parse(json);
	ck_assert_msg(vt.last != NULL, "result is not JSON: %s", json);
	free(json);
	return vt.last;
}

cJSON *vt_exec(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
	va_end(ap);
	cJSON *r = exec_text(text);
	free(text);
	return r;
}

cJSON *vt_exec_cancelled(const char *envelope)
{
	hermes_cancel_t *cancel = hermes_cancel_new();
	ck_assert_ptr_nonnull(cancel);
	hermes_cancel_request(cancel);
	char *json = NULL;
	hermes_execute(vt.ex, envelope, strlen(envelope), 0, cancel, &json, NULL);
	hermes_cancel_free(cancel);
	ck_assert_ptr_nonnull(json);
	cJSON_Delete(vt.last);
	vt.last = cJSON_Parse(json);
	free(json);
	ck_assert_ptr_nonnull(vt.last);
	return vt.last;
}

cJSON *vt_call(const char *verb, cJSON *args)
{
	cJSON *env = cJSON_CreateObject();
	cJSON_AddStringToObject(env, "verb", verb);
	cJSON_AddItemToObject(env, "arguments", args);
	char *text = cJSON_PrintUnformatted(env);
	cJSON_Delete(env);
	cJSON *r = exec_text(text);
	free(text);
	return r;
}

cJSON *vt_args(const char *key, ...)
{
	cJSON *o = cJSON_CreateObject();
	va_list ap;
	va_start(ap, key);
	for (const char *k = key; k; k = va_arg(ap, const char *))
		cJSON_AddStringToObject(o, k, va_arg(ap, const char *));
	va_end(ap);
	return o;
}

void vt_ok_at(const cJSON *r, const char *file, int line)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "succeeded");
	char *text = cJSON_PrintUnformatted(r);
	ck_assert_msg(cJSON_IsTrue(s), "%s:%d: expected success, got %s", file, line, text);
	free(text);
}

void vt_err_at(const cJSON *r, const char *code, const char *mention, const char *file, int line)
{
	char *text = cJSON_PrintUnformatted(r);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "succeeded");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "errorMessage");
	ck_assert_msg(cJSON_IsFalse(s), "%s:%d: expected failure %s, got %s", file, line, code, text);
	ck_assert_msg(cJSON_IsString(c) && strcmp(c->valuestring, code) == 0,
	              "%s:%d: expected errorCode %s, got %s", file, line, code, text);
	ck_assert_msg(cJSON_IsString(m) && m->valuestring[0], "%s:%d: no message in %s", file, line, text);
	if (mention)
		ck_assert_msg(strstr(m->valuestring, mention) != NULL,
		              "%s:%d: message should mention '%s': %s", file, line, mention, text);
	free(text);
}

const char *vt_str(const cJSON *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
	ck_assert_msg(cJSON_IsString(v), "result has no string '%s'", key);
	return v->valuestring;
}

long long vt_int(const cJSON *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
	ck_assert_msg(cJSON_IsNumber(v), "result has no number '%s'", key);
	return (long long)v->valuedouble;
}

bool vt_bool(const cJSON *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
	ck_assert_msg(cJSON_IsBool(v), "result has no boolean '%s'", key);
	return cJSON_IsTrue(v);
}

char *vt_path(const char *rel)
{
	static char ring[8][8192];
	static int next;
	char *p = ring[next++ % 8];
	if (rel[0] == '/')
		snprintf(p, 8192, "%s", rel);
	else
		snprintf(p, 8192, "%s/%s", vt.base, rel);
	return p;
}

static void mkparents(const char *abs)
{
	char tmp[8192];
	snprintf(tmp, sizeof tmp, "%s", abs);
	for (char *s = tmp + strlen(vt.base) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(tmp, 0755);
		*s = '/';
	}
}

void vt_put_bytes(const char *rel, const char *data, size_t len)
{
	const char *abs = vt_path(rel);
	mkparents(abs);
	FILE *f = fopen(abs, "wb");
	ck_assert_msg(f != NULL, "cannot create %s: %s", abs, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

void vt_put(const char *rel, const char *content)
{
	vt_put_bytes(rel, content, strlen(content));
}

char *vt_get(const char *rel, size_t *len)
{
	FILE *f = fopen(vt_path(rel), "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

bool vt_exists(const char *rel)
{
	struct stat st;
	return lstat(vt_path(rel), &st) == 0;
}

void vt_mkdir(const char *rel)
{
	const char *abs = vt_path(rel);
	mkparents(abs);
	ck_assert_msg(mkdir(abs, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", abs, strerror(errno));
}

void vt_symlink(const char *target, const char *rel)
{
	const char *abs = vt_path(rel);
	mkparents(abs);
	ck_assert_msg(symlink(target, abs) == 0, "symlink %s: %s", abs, strerror(errno));
}

static void snap(const char *abs, const char *name, FILE *out)
{
	struct stat st;
	if (lstat(abs, &st) < 0) {
		fprintf(out, "%s: missing\n", name);
		return;
	}
	fprintf(out, "%s: mode %o size %lld", name, (unsigned)st.st_mode, (long long)st.st_size);
	if (S_ISLNK(st.st_mode)) {
		char t[4096];
		ssize_t n = readlink(abs, t, sizeof t - 1);
		t[n < 0 ? 0 : n] = '\0';
		fprintf(out, " -> %s\n", t);
	} else if (S_ISREG(st.st_mode)) {
		FILE *f = fopen(abs, "rb");
		unsigned long h = 5381;
		int c;
		while (f && (c = getc(f)) != EOF)
			h = h * 33 + (unsigned)c;
		if (f)
			fclose(f);
		fprintf(out, " hash %lx mtime %lld.%09ld\n", h, (long long)st.st_mtim.tv_sec,
		        st.st_mtim.tv_nsec);
	} else if (S_ISDIR(st.st_mode)) {
		fprintf(out, "\n");
		struct dirent **list;
		int n = scandir(abs, &list, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
				char sub[8192], subname[8192];
				snprintf(sub, sizeof sub, "%s/%s", abs, list[i]->d_name);
				snprintf(subname, sizeof subname, "%s/%s", name, list[i]->d_name);
				snap(sub, subname, out);
			}
			free(list[i]);
		}
		if (n >= 0)
			free(list);
	} else {
		fprintf(out, "\n");
	}
}

char *vt_snapshot(const char *dir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	snap(vt_path(dir), dir, out);
	fclose(out);
	return text;
}

int vt_run(Suite *s)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(run_dir, sizeof run_dir, "%s/hermes-verbs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(run_dir))
		run_dir[0] = '\0';
	else
		chmod(run_dir, 0755); /* the unprivileged children must reach their workspaces */
	int failed = check_run(s);
	if (run_dir[0])
		vt_rmtree(run_dir);
	return failed == 0 ? 0 : 1;
}

char *vt_exec_unprivileged(const char *envelope)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		char *json = NULL;
		hermes_execute(vt.ex, envelope, strlen(envelope), 0, NULL, &json, NULL);
		cJSON *r = json ? cJSON_Parse(json) : NULL;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		const char *code = cJSON_IsString(c) ? c->valuestring : "";
		(void)!write(fds[1], code, strlen(code));
		_exit(0);
	}
	close(fds[1]);
	char buf[128];
	ssize_t n = read(fds[0], buf, sizeof buf - 1);
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unprivileged child failed");
	buf[n < 0 ? 0 : n] = '\0';
	return strdup(buf);
}
