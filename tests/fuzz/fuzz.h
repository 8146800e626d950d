/* tests/fuzz/fuzz.h: the libFuzzer entry point every target defines (see tests/fuzz/README.md). */
#ifndef HERMES_TESTS_FUZZ_H
#define HERMES_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <hermes/hermes.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An executor whose verbs are all stubs that change nothing (tests/fuzz/stubs.c). */
hermes_executor_t *fuzz_stub_executor(void);
/* Checks what a run returned: a known outcome, a result that is JSON whose "succeeded" agrees,
 * an error that says why if the envelope was refused. Frees out. */
void fuzz_check_result(hermes_outcome_t o, char *out, const hermes_error_t *err);

/* The target's scratch directory, $TMPDIR/hermes-fuzz-NAME.XXXXXX, made at the first call (the
 * same path after it) and removed with everything in it when the run ends; a target that frees
 * something living in it at exit registers that after its first call (tests/fuzz/workdir.c). */
const char *fuzz_workdir(const char *name);
/* Removes everything in it, keeping the directory. */
void fuzz_workdir_empty(void);

/* A fuzz target checks the invariants it can; a broken one aborts, which both libFuzzer and the
 * replay driver report as a failure with the input. */
#define FUZZ_ASSERT(cond)                                                                       \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                \
		}                                                                               \
	} while (0)

#endif
