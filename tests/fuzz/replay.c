/* tests/fuzz/replay.c: runs a fuzz target over its corpus without libFuzzer, so `make check` with
 * any compiler replays every input ever found interesting (a crash once found stays a test).
 * Usage: fuzz_<name> [FILE|DIR]...; with no operand it reads the directories listed in the
 * FUZZ_CORPORA define (colon-separated, relative to $top_srcdir). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

static int replay_file(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *data = malloc(cap);
	size_t n;
	while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *bigger = realloc(data, cap * 2);
			if (bigger == NULL) {
				free(data);
				data = NULL;
				break;
			}
			data = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (data == NULL) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	/* An exact-size copy, so AddressSanitizer sees a read past the input as the overflow it is. */
	uint8_t *exact = malloc(len ? len : 1);
	memcpy(exact, data, len);
	free(data);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

static int replay(const char *path, size_t *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);
	DIR *d = opendir(path);
	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		if (replay(sub, count) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay(argv[i], &count) != 0)
				rc = 1;
	} else {
		const char *top = getenv("top_srcdir");
		char list[] = FUZZ_CORPORA;
		for (char *dir = strtok(list, ":"); dir; dir = strtok(NULL, ":")) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", top ? top : ".", dir);
			if (replay(path, &count) != 0)
				rc = 1;
		}
	}
	printf("%s: %zu inputs replayed\n", argv[0], count);
	if (count == 0) {
		fprintf(stderr, "%s: no corpus found (is top_srcdir set?)\n", argv[0]);
		rc = 1;
	}
	return rc;
}
