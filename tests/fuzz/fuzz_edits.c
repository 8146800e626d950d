/* tests/fuzz/fuzz_edits.c: read-modify-write verbs racing on one file. The input is a list of
 * edits (fs.editFile, fs.writeRange, and reads between them) dealt to 2 to 4 threads that start
 * together on one executor; every edit only adds a line of its own, so afterwards the file must
 * hold exactly the anchors it started with plus the line of every edit that reported success,
 * once each, none of the failed ones', and no temporary file may be left beside it. */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

enum { ANCHORS = 8, MAX_THREADS = 4, MAX_OPS = 48 };

static hermes_executor_t *ex;
static const char *base; /* the workspace (fuzz_workdir) */
static char file[PATH_MAX];

typedef struct op {
	int thread;
	int kind;      /* 0 editFile after an anchor, 1 editFile after two anchors (all or nothing),
	                  2 writeRange insert, 3 readRange */
	int a, b;      /* anchors, or the line to insert before */
	bool ok;       /* reported success */
} op_t;

static op_t ops[MAX_OPS];
static int nops, nthreads;
static pthread_barrier_t start;

static void cleanup(void)
{
	hermes_executor_free(ex); /* before fuzz_workdir removes its root */
}

static void setup(void)
{
	base = fuzz_workdir("edits");
	atexit(cleanup);
	snprintf(file, sizeof file, "%s/f.txt", base);
	hermes_config_t config = {.root = base};
	hermes_error_t err;
	FUZZ_ASSERT(hermes_executor_new(&config, &ex, &err) == 0);
}

/* The line an edit adds (without its newline). */
static void line_of(int i, char *out, size_t n)
{
	snprintf(out, n, "edit-%02d-by-%d", i, ops[i].thread);
}

static bool run(const char *envelope)
{
	char *json = NULL;
	hermes_error_t err;
	hermes_outcome_t o = hermes_execute(ex, envelope, strlen(envelope), 0, NULL, &json, &err);
	FUZZ_ASSERT(o != HERMES_OUTCOME_INVALID);
	FUZZ_ASSERT(json != NULL);
	bool ok = o == HERMES_OUTCOME_SUCCEEDED;
	FUZZ_ASSERT(ok == (strstr(json, "\"succeeded\":true") != NULL));
	free(json);
	return ok;
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < nops; i++) {
		if (ops[i].thread != t)
			continue;
		char env[512], line[32];
		line_of(i, line, sizeof line);
		switch (ops[i].kind) {
		case 0:
			snprintf(env, sizeof env, "{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"f.txt\","
			         "\"edits\":[{\"oldText\":\"anchor-%d\\n\",\"newText\":\"anchor-%d\\n%s\\n\"}]}}",
			         ops[i].a, ops[i].a, line);
			break;
		case 1:
			/* the same line after two anchors would count twice: the second gets a suffix */
			snprintf(env, sizeof env, "{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"f.txt\","
			         "\"edits\":[{\"oldText\":\"anchor-%d\\n\",\"newText\":\"anchor-%d\\n%s\\n\"},"
			         "{\"oldText\":\"anchor-%d\\n\",\"newText\":\"anchor-%d\\n%s-too\\n\"}]}}",
			         ops[i].a, ops[i].a, line, ops[i].b, ops[i].b, line);
			break;
		case 2:
			snprintf(env, sizeof env, "{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":\"f.txt\","
			         "\"startLine\":%d,\"content\":\"%s\\n\"}}", ops[i].a + 1, line);
			break;
		default:
			snprintf(env, sizeof env, "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"f.txt\","
			         "\"startLine\":-3,\"endLine\":-1}}");
			break;
		}
		ops[i].ok = run(env);
		if (ops[i].kind == 3)
			FUZZ_ASSERT(ops[i].ok); /* a reader never sees the file missing or half-written */
	}
	return NULL;
}

/* How many lines of text are exactly line. */
static int count_line(const char *text, const char *line)
{
	int n = 0;
	size_t len = strlen(line);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		n += l == len && memcmp(p, line, len) == 0;
		p += l + (nl != NULL);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ex)
		setup();
	if (size < 1)
		return 0;
	nthreads = 2 + data[0] % (MAX_THREADS - 1);
	nops = 0;
	for (size_t i = 1; i + 1 < size && nops < MAX_OPS; i += 2) {
		op_t *o = &ops[nops++];
		o->thread = data[i] % nthreads;
		o->kind = (data[i] / nthreads) % 4;
		o->a = data[i + 1] % ANCHORS;
		o->b = (o->a + 1 + (data[i + 1] / ANCHORS) % (ANCHORS - 1)) % ANCHORS; /* another one */
		o->ok = false;
	}
	FILE *f = fopen(file, "w");
	FUZZ_ASSERT(f != NULL);
	for (int i = 0; i < ANCHORS; i++)
		fprintf(f, "anchor-%d\n", i);
	FUZZ_ASSERT(fclose(f) == 0);

	pthread_t t[MAX_THREADS];
	FUZZ_ASSERT(pthread_barrier_init(&start, NULL, (unsigned)nthreads) == 0);
	for (int i = 0; i < nthreads; i++)
		FUZZ_ASSERT(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);

	/* the file: the anchors once each, every success's line once, no failure's line, nothing else */
	f = fopen(file, "r");
	FUZZ_ASSERT(f != NULL);
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[len] = '\0';
	int lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	FUZZ_ASSERT(len > 0 && text[len - 1] == '\n');
	int want = ANCHORS;
	char line[48];
	for (int i = 0; i < ANCHORS; i++) {
		snprintf(line, sizeof line, "anchor-%d", i);
		FUZZ_ASSERT(count_line(text, line) == 1);
	}
	for (int i = 0; i < nops; i++) {
		if (ops[i].kind == 3)
			continue;
		line_of(i, line, sizeof line);
		if (count_line(text, line) != (ops[i].ok ? 1 : 0)) {
			fprintf(stderr, "edit %d (%s, kind %d) reported %s, and its line is in the file %d "
			        "times:\n%s", i, line, ops[i].kind, ops[i].ok ? "success" : "failure",
			        count_line(text, line), text);
			FUZZ_ASSERT(!"every reported success is in the file, once");
		}
		want += ops[i].ok ? 1 + (ops[i].kind == 1) : 0;
	}
	FUZZ_ASSERT(lines == want);
	/* no temporary file of an atomic write is left */
	DIR *d = opendir(base);
	FUZZ_ASSERT(d != NULL);
	for (struct dirent *de; (de = readdir(d));)
		FUZZ_ASSERT(strstr(de->d_name, "hermes-tmp") == NULL);
	closedir(d);
	return 0;
}
