/* proc/leftovers.c: removing what gone Hermes processes left (leftovers.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/leftovers.h"

void hermes_leftovers_sweep(const char *parent, const char *prefix, void (*remove)(const char *path))
{
	DIR *d = opendir(parent);
	if (!d)
		return;
	size_t n = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		long pid;
		int end = 0; /* set only when the '-' after the pid is there */
		char path[4096];
		struct stat st;
		if (strncmp(e->d_name, prefix, n) == 0 && sscanf(e->d_name + n, "%ld-%n", &pid, &end) == 1 &&
		    end > 0 && pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
		    snprintf(path, sizeof path, "%s/%s", parent, e->d_name) < (int)sizeof path &&
		    lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			remove(path);
	}
	closedir(d);
}
