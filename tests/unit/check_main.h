/* Shared main() for Check unit-test binaries: runs the suites and writes one
 * "PASS suite/test" or "FAIL suite/test" line per test to $RTDD_RESULTS, so
 * make check can count individual tests across all binaries. */
#ifndef RTDD_TESTS_CHECK_MAIN_H
#define RTDD_TESTS_CHECK_MAIN_H
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static int rtdd_check_run(const char *prefix, Suite **suites, int nsuites)
{
    SRunner *sr = srunner_create(suites[0]);
    for (int i = 1; i < nsuites; i++)
        srunner_add_suite(sr, suites[i]);
    srunner_run_all(sr, CK_NORMAL);
    const char *path = getenv("RTDD_RESULTS");
    FILE *out = path ? fopen(path, "a") : NULL;
    int n = srunner_ntests_run(sr);
    TestResult **res = srunner_results(sr);
    for (int i = 0; i < n && out; i++) {
        int ok = tr_rtype(res[i]) == CK_PASS;
        fprintf(out, "%s %s/%s#%d%s%s\n", ok ? "PASS" : "FAIL", prefix, tr_tcname(res[i]), i,
                ok ? "" : " ", ok ? "" : tr_msg(res[i]));
    }
    free(res);
    if (out)
        fclose(out);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 && n > 0 ? 0 : 1;
}
#endif
