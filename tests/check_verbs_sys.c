/* tests/check_verbs_sys.c: sys.machineInfo against what the system says directly. */
#include <config.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "verbs_testlib.h"

static cJSON *info(void)
{
	cJSON *r = vt_exec("{\"verb\":\"sys.machineInfo\",\"arguments\":{}}");
	vt_ok(r);
	return r;
}

/* The disk entry whose name is the deepest mount point containing path, or NULL. */
static const cJSON *disk_of(const cJSON *r, const char *path)
{
	const cJSON *best = NULL;
	size_t best_len = 0;
	const cJSON *d;
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(r, "disks"))
	{
		const char *name = vt_str(d, "name");
		size_t n = strlen(name);
		bool contains = strcmp(name, "/") == 0 ||
		                (strncmp(name, path, n) == 0 && (path[n] == '/' || path[n] == '\0'));
		if (contains && n >= best_len) {
			best = d;
			best_len = n;
		}
	}
	return best;
}

START_TEST(machine_info_matches_system)
{
	cJSON *r = info();
	struct utsname u;
	ck_assert_int_eq(uname(&u), 0);
	char want[1024];
	snprintf(want, sizeof want, "%s %s %s", u.sysname, u.release, u.machine);
	ck_assert_msg(strncmp(vt_str(r, "operatingSystem"), want, strlen(want)) == 0, "%s",
	              vt_str(r, "operatingSystem"));
	cpu_set_t set;
	ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
	ck_assert_int_eq(vt_int(r, "cpuCount"), CPU_COUNT(&set));
	ck_assert_int_ge(vt_int(r, "cpuCount"), 1);
	long long mem = (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	ck_assert_int_eq(vt_int(r, "totalMemoryBytes"), mem);
	const cJSON *disks = cJSON_GetObjectItemCaseSensitive(r, "disks");
	ck_assert_int_ge(cJSON_GetArraySize(disks), 1);
	const cJSON *d;
	const char *prev = "";
	cJSON_ArrayForEach(d, disks)
	{
		const char *name = vt_str(d, "name");
		ck_assert_msg(strcmp(prev, name) < 0, "disks sorted and unique: %s, %s", prev, name);
		prev = name;
		ck_assert_msg(strcmp(name, "/proc") && strcmp(name, "/sys") && strcmp(name, "/dev/pts") &&
		              strncmp(name, "/sys/", 5) && strncmp(name, "/proc/", 6),
		              "pseudo file system listed: %s", name);
		ck_assert_int_gt(vt_int(d, "totalBytes"), 0);
		ck_assert_int_ge(vt_int(d, "freeBytes"), 0);
		ck_assert_int_le(vt_int(d, "freeBytes"), vt_int(d, "totalBytes"));
	}
	ck_assert_msg(disk_of(r, vt.root) != NULL, "the workspace's file system is missing");
}
END_TEST

START_TEST(machine_info_workspace_on_tmpfs)
{
	/* Even a memory file system is listed when it holds the workspace. */
	struct stat st;
	if (stat("/dev/shm", &st) < 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) < 0)
		return;
	char dir[] = "/dev/shm/hermes-sys-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	hermes_executor_t *ex;
	hermes_config_t c = {.root = dir};
	ck_assert_int_eq(hermes_executor_new(&c, &ex, NULL), 0);
	hermes_executor_free(vt.ex);
	vt.ex = ex;
	cJSON *r = info();
	const cJSON *d = disk_of(r, dir);
	rmdir(dir);
	ck_assert_ptr_nonnull(d);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	bool shm_mounted = false;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, " /dev/shm "))
			shm_mounted = true;
	if (f)
		fclose(f);
	if (shm_mounted)
		ck_assert_str_eq(vt_str(d, "name"), "/dev/shm");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-sys");
	TCase *tc = tcase_create("sys");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, machine_info_matches_system);
	tcase_add_test(tc, machine_info_workspace_on_tmpfs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
