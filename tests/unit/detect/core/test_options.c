#include "detect/suites.h"
#include "core/options.h"
#include <string.h>

static struct rt_options o;
static char errtext[2048];
static struct rt_buf err;

static int parse(const char *text)
{
    rt_options_defaults(&o);
    rt_buf_init(&err, errtext, sizeof errtext);
    return rt_options_parse(&o, text, &err);
}

START_TEST(defaults_match_contract)
{
    ck_assert_int_eq(parse(""), 0);
    ck_assert_str_eq(o.log_path, "stderr");
    ck_assert_int_eq(o.report_format, RT_FORMAT_TEXT);
    ck_assert_int_eq(o.halt_on_error, 0);
    ck_assert_int_eq(o.exitcode, 66);
    ck_assert_str_eq(o.suppressions, "");
    ck_assert_int_eq(o.detect_deadlocks, 1);
    ck_assert_int_eq(o.deadlock_timeout_ms, 2000);
    ck_assert_int_eq(o.rcu_stall_timeout_ms, 10000);
    ck_assert_int_eq(o.lock_classes, RT_CLASSES_AUTO);
    ck_assert_int_eq(o.rcu_deref_rule, RT_DEREF_UPDATERS);
    ck_assert_int_eq(o.stack_depth, 32);
    ck_assert_int_eq(o.symbolize, 1);
    ck_assert_int_eq(o.print_summary, 1);
}
END_TEST

START_TEST(parses_both_separators)
{
    ck_assert_int_eq(parse("log_path=/tmp/x.%p:report_format=json,exitcode=3::halt_on_error=1,lock_classes=site"), 0);
    ck_assert_str_eq(o.log_path, "/tmp/x.%p");
    ck_assert_int_eq(o.report_format, RT_FORMAT_JSON);
    ck_assert_int_eq(o.exitcode, 3);
    ck_assert_int_eq(o.halt_on_error, 1);
    ck_assert_int_eq(o.lock_classes, RT_CLASSES_SITE);
    ck_assert_int_eq(parse("rcu_deref_rule=lockdep"), 0);
    ck_assert_int_eq(o.rcu_deref_rule, RT_DEREF_LOCKDEP);
    ck_assert_int_eq(parse("rcu_deref_rule=always"), -1);
    ck_assert_ptr_nonnull(strstr(errtext, "updaters|lockdep"));
}
END_TEST

START_TEST(unknown_key_is_named_with_valid_list)
{
    ck_assert_int_eq(parse("halt_on_eror=1"), -1);
    ck_assert_ptr_nonnull(strstr(errtext, "unknown option 'halt_on_eror'"));
    for (unsigned i = 0; i < rt_option_count; i++)
        ck_assert_ptr_nonnull(strstr(errtext, rt_option_table[i].key));
}
END_TEST

START_TEST(bad_values_are_rejected)
{
    ck_assert_int_eq(parse("exitcode=abc"), -1);
    ck_assert_ptr_nonnull(strstr(errtext, "bad value 'abc' for option 'exitcode'"));
    ck_assert_int_eq(parse("exitcode=256"), -1);
    ck_assert_int_eq(parse("halt_on_error=2"), -1);
    ck_assert_int_eq(parse("report_format=xml"), -1);
    ck_assert_ptr_nonnull(strstr(errtext, "text|json"));
    ck_assert_int_eq(parse("stack_depth=0"), -1);
    ck_assert_int_eq(parse("symbolize"), -1);
    ck_assert_ptr_nonnull(strstr(errtext, "no value"));
}
END_TEST

START_TEST(table_is_complete)
{
    /* Every option has a meaning and a default that parses. */
    for (unsigned i = 0; i < rt_option_count; i++) {
        ck_assert_ptr_nonnull(rt_option_find(rt_option_table[i].key, strlen(rt_option_table[i].key)));
        ck_assert_int_gt(strlen(rt_option_table[i].help), 10);
    }
    ck_assert_uint_eq(rt_option_count, 20);
}
END_TEST

Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, defaults_match_contract);
    tcase_add_test(tc, parses_both_separators);
    tcase_add_test(tc, unknown_key_is_named_with_valid_list);
    tcase_add_test(tc, bad_values_are_rejected);
    tcase_add_test(tc, table_is_complete);
    suite_add_tcase(s, tc);
    return s;
}
