/* tests/check_run.h: runs a Check suite the way every suite of the project does (verbosity from
 * CK_VERBOSITY, default normal; each test in a process of its own unless CK_FORK=no) and returns
 * how many of its tests failed. */
#ifndef HERMES_TESTS_CHECK_RUN_H
#define HERMES_TESTS_CHECK_RUN_H

#include <check.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

#endif
