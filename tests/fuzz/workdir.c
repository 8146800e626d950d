/* tests/fuzz/workdir.c: the scratch directory of a fuzz target that touches files (fuzz.h): made
 * once under $TMPDIR, emptied on demand, removed with all it holds when the run ends. */
#include "config.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

static char dir[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

void fuzz_workdir_empty(void)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_dir(void)
{
	fuzz_workdir_empty();
	rmdir(dir);
}

const char *fuzz_workdir(const char *name)
{
	if (dir[0] == '\0') {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/hermes-fuzz-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
		FUZZ_ASSERT(mkdtemp(dir) != NULL);
		atexit(remove_dir);
	}
	return dir;
}
