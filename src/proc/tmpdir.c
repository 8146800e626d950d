/* proc/tmpdir.c: private temporary directories of the programs Hermes starts (tmpdir.h). */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/leftovers.h"
#include "proc/tmpdir.h"

#define PREFIX "hermes-tmp-"

/* Where they are made: $TMPDIR when it is an absolute path, else /tmp. */
static const char *parent_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && t[0] == '/' ? t : "/tmp";
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path); /* one that cannot be removed is left; the rest are still tried */
	return 0;
}

/* Removes path with everything in it: depth first, each entry as itself (a symbolic link is
 * unlinked, not followed), never into another file system mounted beneath. Also the sweep's. */
static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void hermes_tmpdir_remove(char *path)
{
	if (!path)
		return;
	remove_tree(path);
	free(path);
}

int hermes_tmpdir_make(char **path)
{
	static atomic_bool swept;
	static atomic_uint seq;
	*path = NULL;
	const char *parent = parent_dir();
	if (!atomic_exchange(&swept, true))
		hermes_leftovers_sweep(parent, PREFIX, remove_tree);
	char buf[4096];
	int len = snprintf(buf, sizeof buf, "%s/" PREFIX "%ld-%u", parent, (long)getpid(),
	                   atomic_fetch_add(&seq, 1));
	if (len < 0 || (size_t)len >= sizeof buf)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0700) != 0)
		return -errno;
	if (!(*path = strdup(buf))) {
		rmdir(buf);
		return -ENOMEM;
	}
	return 0;
}
