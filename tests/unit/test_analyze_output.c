/* The outputs, read back: JSON with json-c, the others by their structure
 * (the SARIF schema check and XML well-formedness are in tests/analyze/). */
#include "../analyze/unit_helpers.h"
#include "kinddoc.h"
#include "report/kinds.h"
#include "output.h"
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *render(int (*writer)(FILE *, const struct az_analysis *, const struct az_output_context *),
                    const struct az_analysis *a, const char *docs)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct az_output_context ctx = {"9.9.9", docs};
    ck_assert_int_eq(writer(out, a, &ctx), 0);
    fclose(out);
    return buf;
}

static void sample(struct az_analysis *a)
{
    az_analysis_init(a);
    analyse_text(a, "a.log", xfrm_text_report);
    analyse_text(a, "b.log", xfrm_json_report);
    analyse_text(a, "c.log", seed_kernel_report);
    analyse_text(a, "d.log", "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n");
    az_analysis_finish(a);
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    ck_assert_msg(json_object_object_get_ex(o, key, &v), "no '%s'", key);
    return v;
}

START_TEST(json_output_reads_back)
{
    struct az_analysis a;
    sample(&a);
    char *text = render(az_write_json, &a, NULL);
    json_object *root = json_tokener_parse(text);
    ck_assert_ptr_nonnull(root);
    json_object *sum = get(root, "summary");
    ck_assert_int_eq(json_object_get_int(get(sum, "findings")), 2);
    ck_assert_int_eq(json_object_get_int(get(sum, "corrupt_reports")), 1);
    json_object *f = json_object_array_get_idx(get(root, "findings"), 0);
    ck_assert_str_eq(json_object_get_string(get(f, "title")), "active lock freed in policy_gc_task");
    ck_assert_str_eq(json_object_get_string(get(f, "signature")), a.findings[0]->sig.hex);
    ck_assert_int_eq(json_object_get_int(get(f, "count")), 2);
    ck_assert_str_eq(json_object_get_string(get(f, "status")), "new");
    ck_assert_str_eq(json_object_get_string(get(f, "severity")), "BUG");
    ck_assert_int_eq((int)json_object_array_length(get(f, "logs")), 2);
    ck_assert_str_eq(json_object_get_string(get(get(f, "first_seen"), "log")), "a.log");
    json_object *st = json_object_array_get_idx(get(f, "stacks"), 0);
    json_object *fr = json_object_array_get_idx(get(st, "frames"), 0);
    ck_assert_str_eq(json_object_get_string(get(fr, "function")), "policy_gc_task");
    ck_assert_str_eq(json_object_get_string(get(fr, "module_offset")), "0x126d");
    json_object *p = json_object_array_get_idx(get(root, "problems"), 0);
    ck_assert_str_eq(json_object_get_string(get(p, "log")), "d.log");
    ck_assert_int_eq(json_object_get_int(get(p, "line")), 1);
    json_object_put(root);
    free(text);
    az_analysis_destroy(&a);
}
END_TEST

START_TEST(sarif_output_shape)
{
    struct az_analysis a;
    sample(&a);
    char *text = render(az_write_sarif, &a, "/nonexistent");
    json_object *root = json_tokener_parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(json_object_get_string(get(root, "version")), "2.1.0");
    json_object *run = json_object_array_get_idx(get(root, "runs"), 0);
    json_object *rules = get(get(get(run, "tool"), "driver"), "rules");
    ck_assert_int_eq((int)json_object_array_length(rules), RT_KIND_COUNT);
    json_object *rule = json_object_array_get_idx(rules, RT_KIND_DEADLOCK);
    ck_assert_str_eq(json_object_get_string(get(rule, "id")), "deadlock");
    ck_assert_ptr_nonnull(strstr(json_object_get_string(get(get(rule, "help"), "text")),
                                 "BUG: deadlock detected, N threads blocked in a cycle"));
    json_object *res = json_object_array_get_idx(get(run, "results"), 0);
    ck_assert_str_eq(json_object_get_string(get(res, "ruleId")), "active-lock-freed");
    ck_assert_str_eq(json_object_get_string(get(res, "level")), "error");
    ck_assert_int_eq(json_object_get_int(get(res, "occurrenceCount")), 2);
    ck_assert_str_eq(json_object_get_string(get(get(res, "partialFingerprints"), "rtddSignature/v1")),
                     a.findings[0]->sig.hex);
    json_object *phys = get(json_object_array_get_idx(get(res, "locations"), 0), "physicalLocation");
    ck_assert_str_eq(json_object_get_string(get(get(phys, "artifactLocation"), "uri")), "examples/xfrm_gc.c");
    ck_assert_int_eq(json_object_get_int(get(get(phys, "region"), "startLine")), 38);
    /* The stacks, and the same frames as code flows, outermost first. */
    ck_assert_int_eq((int)json_object_array_length(get(res, "stacks")), 3);
    json_object *flow = json_object_array_get_idx(get(json_object_array_get_idx(get(res, "codeFlows"), 0), "threadFlows"), 0);
    json_object *step = json_object_array_get_idx(get(flow, "locations"), 0);
    ck_assert_str_eq(json_object_get_string(get(get(get(step, "location"), "physicalLocation"), "artifactLocation") ?
                         get(get(get(get(step, "location"), "physicalLocation"), "artifactLocation"), "uri") : NULL),
                     "./nptl/pthread_create.c");
    json_object *note = json_object_array_get_idx(
        get(json_object_array_get_idx(get(run, "invocations"), 0), "toolExecutionNotifications"), 0);
    ck_assert_ptr_nonnull(strstr(json_object_get_string(get(get(note, "message"), "text")), "cut off"));
    json_object_put(root);
    free(text);
    az_analysis_destroy(&a);
}
END_TEST

START_TEST(kind_help_from_page_or_table)
{
    char dir[] = "/tmp/rtdd-analyze-docs-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/active-lock-freed.md", dir);
    FILE *f = fopen(path, "w");
    fputs("# active-lock-freed\n\nMemory holding a locked mutex was freed.\n", f);
    fclose(f);
    int from_page;
    char *help = az_kind_help(RT_KIND_ACTIVE_LOCK_FREED, dir, &from_page);
    ck_assert(from_page);
    ck_assert_ptr_nonnull(strstr(help, "Memory holding a locked mutex"));
    free(help);
    help = az_kind_help(RT_KIND_RCU_STALL, dir, &from_page);
    ck_assert(!from_page);
    ck_assert_ptr_nonnull(strstr(help, rt_kind_table[RT_KIND_RCU_STALL].headline));
    ck_assert_ptr_nonnull(strstr(help, rt_kind_table[RT_KIND_RCU_STALL].title));
    free(help);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(text_junit_html_dot_outputs)
{
    struct az_analysis a;
    sample(&a);
    char *text = render(az_write_text, &a, NULL);
    ck_assert_ptr_nonnull(strstr(text, "2 findings in 4 logs (2 new, 0 in baseline), 0 reports suppressed, "
                                       "1 truncated or corrupt report\n"));
    ck_assert_ptr_nonnull(strstr(text, "      2  active-lock-freed  active lock freed in policy_gc_task"));
    ck_assert_ptr_nonnull(strstr(text, "truncated: d.log:1 (active-lock-freed: report cut off after 0 frames"));
    free(text);
    char *junit = render(az_write_junit, &a, NULL);
    ck_assert_ptr_nonnull(strstr(junit, "<testsuite name=\"rtdd analyze\" tests=\"2\" failures=\"2\""));
    ck_assert_ptr_nonnull(strstr(junit, "<testcase classname=\"rtdd.active-lock-freed\" name=\"active lock freed in "
                                        "xfrm_policy_gc_task\""));
    free(junit);
    char *html = render(az_write_html, &a, NULL);
    ck_assert_ptr_nonnull(strstr(html, "<!DOCTYPE html>"));
    ck_assert_ptr_nonnull(strstr(html, "active lock freed in policy_gc_task"));
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "src=\"http"));
    free(html);
    char *dot = render(az_write_dot, &a, NULL);
    ck_assert_ptr_nonnull(strstr(dot, "digraph"));
    free(dot);
    az_analysis_destroy(&a);
}
END_TEST

Suite *analyze_output_suite(void)
{
    Suite *s = suite_create("analyze-output");
    TCase *tc = tcase_create("output");
    tcase_add_test(tc, json_output_reads_back);
    tcase_add_test(tc, sarif_output_shape);
    tcase_add_test(tc, kind_help_from_page_or_table);
    tcase_add_test(tc, text_junit_html_dot_outputs);
    suite_add_tcase(s, tc);
    return s;
}
