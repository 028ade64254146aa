/* The analysis: de-duplication, counts, logs, first/last seen,
 * suppressions, baseline, and memory that does not grow with input. */
#include "../analyze/unit_helpers.h"
#include "report/kinds.h"
#include "output.h"
#include "core/rt_fmt.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(duplicates_become_one_finding)
{
    struct az_analysis a;
    az_analysis_init(&a);
    analyse_text(&a, "run-1.log", xfrm_text_report);
    analyse_text(&a, "run-2.log", xfrm_json_report);
    analyse_text(&a, "run-3.log", "nothing to see here\n");
    analyse_text(&a, "run-4.log", xfrm_text_report);
    analyse_text(&a, "run-4b.log", seed_kernel_report);
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.nlogs, 5);
    ck_assert_uint_eq(a.reports, 4);
    ck_assert_uint_eq(a.nfindings, 2);
    const struct az_finding *f = a.findings[0]; /* sorted by count */
    ck_assert_uint_eq(f->count, 3);
    ck_assert_uint_eq(f->nlogs, 3);
    ck_assert_str_eq(a.logs[f->logs[0]], "run-1.log");
    ck_assert_str_eq(a.logs[f->logs[2]], "run-4.log");
    /* First and last seen follow the reports' clocks. */
    ck_assert_str_eq(f->first.time, "2026-12-03T08:23:45.505Z");
    ck_assert_str_eq(a.logs[f->first.log_index], "run-1.log");
    ck_assert_str_eq(f->last.time, "2026-12-03T09:00:00.000Z");
    ck_assert_str_eq(a.logs[f->last.log_index], "run-2.log");
    ck_assert_int_eq(az_finding_status(f), AZ_NEW);
    ck_assert(az_finding_fails(f));
    char loc[256];
    az_finding_location(f, loc, sizeof loc);
    ck_assert_str_eq(loc, "examples/xfrm_gc.c:38");
    ck_assert_str_eq(a.findings[1]->sig.title, "active lock freed in xfrm_policy_gc_task");
    az_analysis_destroy(&a);
}
END_TEST

START_TEST(corrupt_reports_never_make_findings)
{
    struct az_analysis a;
    az_analysis_init(&a);
    analyse_text(&a, "cut.log", "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n");
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.nfindings, 0);
    ck_assert_uint_eq(a.corrupt_total, 1);
    ck_assert_uint_eq(a.nproblems, 1);
    ck_assert_str_eq(a.logs[a.problems[0].log_index], "cut.log");
    ck_assert_uint_eq(a.problems[0].line, 1);
    ck_assert_int_eq(a.problems[0].kind, RT_KIND_ACTIVE_LOCK_FREED);
    az_analysis_destroy(&a);
}
END_TEST

static struct rt_suppressions *suppressions(const char *text)
{
    char msg[256];
    struct rt_buf b;
    rt_buf_init(&b, msg, sizeof msg);
    struct rt_suppressions *s = rt_suppressions_parse(text, strlen(text), "test", &b);
    ck_assert_msg(s != NULL, "%s", msg);
    return s;
}

START_TEST(suppressed_reports_do_not_fail)
{
    static const char *const rules[] = {"active-lock-freed:policy_user", "*:examples/xfrm_gc.c", "active-lock-freed:xfrm_*",
                                        "*:policy_*"};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        struct az_analysis a;
        az_analysis_init(&a);
        a.suppressions = suppressions(rules[i]);
        analyse_text(&a, "x.log", xfrm_text_report);
        analyse_text(&a, "y.log", xfrm_text_report);
        az_analysis_finish(&a);
        ck_assert_uint_eq(a.nfindings, 1);
        ck_assert_uint_eq(a.suppressed_reports, 2);
        ck_assert_int_eq(az_finding_status(a.findings[0]), AZ_SUPPRESSED);
        ck_assert(!az_finding_fails(a.findings[0]));
        az_analysis_destroy(&a);
    }
    /* A rule of another kind, or matching no frame, suppresses nothing. */
    struct az_analysis a;
    az_analysis_init(&a);
    a.suppressions = suppressions("deadlock:policy_user\nactive-lock-freed:no_such_function\n");
    analyse_text(&a, "x.log", xfrm_text_report);
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.suppressed_reports, 0);
    ck_assert(az_finding_fails(a.findings[0]));
    az_analysis_destroy(&a);
}
END_TEST

START_TEST(baseline_from_a_previous_json_output)
{
    struct az_analysis a;
    az_analysis_init(&a);
    analyse_text(&a, "old.log", xfrm_text_report);
    az_analysis_finish(&a);
    char *path = temp_file("", 0);
    FILE *out = fopen(path, "w");
    struct az_output_context ctx = {"test", NULL};
    ck_assert_int_eq(az_write_json(out, &a, &ctx), 0);
    fclose(out);
    az_analysis_destroy(&a);

    az_analysis_init(&a);
    char err[512];
    ck_assert_int_eq(az_analysis_load_baseline(&a, path, err, sizeof err), 0);
    ck_assert_uint_eq(a.nbaseline, 1);
    analyse_text(&a, "new.log", xfrm_json_report);      /* known */
    analyse_text(&a, "new.log", seed_kernel_report);    /* new */
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.nfindings, 2);
    for (unsigned i = 0; i < 2; i++) {
        const struct az_finding *f = a.findings[i];
        int known = !strcmp(f->sig.title, "active lock freed in policy_gc_task");
        ck_assert_int_eq(az_finding_status(f), known ? AZ_BASELINE : AZ_NEW);
        ck_assert_int_eq(az_finding_fails(f), !known);
    }
    az_analysis_destroy(&a);
    /* Not an analyser output: refused with a reason. */
    az_analysis_init(&a);
    FILE *bad = fopen(path, "w");
    fputs("{\"rtdd\":1}", bad);
    fclose(bad);
    ck_assert_int_eq(az_analysis_load_baseline(&a, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "findings"));
    az_analysis_destroy(&a);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(info_findings_do_not_fail)
{
    static const char text[] =
        "------------[ cut here ]------------\nINFO: rcu detected stall: grace period blocked 12000 ms by readers\n"
        "CPU: 0 PID: 1 TID: 2 Comm: r Time: 2026-12-03T08:00:00.000Z\nthe reader entered at:\n"
        " [<0000000000001000>] read_config+0x1/0x2 (16) app+0x1000 a.c:1\n"
        "SUMMARY: rtdd: rcu-stall a.c:1 in read_config\n---[ end report ]---\n";
    struct az_analysis a;
    az_analysis_init(&a);
    analyse_text(&a, "x.log", text);
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.nfindings, 1);
    ck_assert_str_eq(a.findings[0]->sig.title, "RCU stall in read_config");
    ck_assert_int_eq(az_finding_status(a.findings[0]), AZ_NEW);
    ck_assert(!az_finding_fails(a.findings[0]));
    az_analysis_destroy(&a);
}
END_TEST

START_TEST(memory_follows_findings_not_reports)
{
    /* 20,000 reports of one bug and 20,000 corrupt ones: one finding, the
     * problem list capped, the parser's working memory the same. */
    struct az_analysis a;
    az_analysis_init(&a);
    struct az_parser *p = az_parser_new(az_analysis_report, &a);
    az_parser_begin_log(p, az_analysis_add_log(&a, "big.log"));
    unsigned long lineno = 0;
    for (int i = 0; i < 20000; i++) {
        const char *s = xfrm_text_report;
        while (*s) {
            const char *nl = strchr(s, '\n');
            az_parser_line(p, s, (size_t)(nl - s), ++lineno, 0);
            s = nl + 1;
        }
        static const char cut[] = "------------[ cut here ]------------";
        az_parser_line(p, cut, sizeof cut - 1, ++lineno, 0);
        static const char head[] = "BUG: x/1, active lock [0x1(0x1-0x2)] freed!";
        az_parser_line(p, head, sizeof head - 1, ++lineno, 0);
    }
    az_parser_end_log(p, lineno);
    az_parser_free(p);
    az_analysis_finish(&a);
    ck_assert_uint_eq(a.nfindings, 1);
    ck_assert_uint_eq(a.findings[0]->count, 20000);
    ck_assert_uint_eq(a.findings[0]->nlogs, 1);
    ck_assert_uint_eq(a.corrupt_total, 20000);
    ck_assert_uint_eq(a.nproblems, AZ_MAX_PROBLEMS);
    ck_assert_uint_eq(a.problems_total, 20000);
    az_analysis_destroy(&a);
}
END_TEST

Suite *analyze_analysis_suite(void)
{
    Suite *s = suite_create("analyze-analysis");
    TCase *tc = tcase_create("analysis");
    tcase_add_test(tc, duplicates_become_one_finding);
    tcase_add_test(tc, corrupt_reports_never_make_findings);
    tcase_add_test(tc, suppressed_reports_do_not_fail);
    tcase_add_test(tc, baseline_from_a_previous_json_output);
    tcase_add_test(tc, info_findings_do_not_fail);
    tcase_add_test(tc, memory_follows_findings_not_reports);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
