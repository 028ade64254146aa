#include "detect/suites.h"
#include "report/kinds.h"
#include "report/suppress.h"
#include <string.h>

START_TEST(kinds_table_matches_contract_headlines)
{
    ck_assert_int_eq(RT_KIND_COUNT, 33);
    for (int k = 0; k < RT_KIND_COUNT; k++) {
        const struct rt_kind_info *i = &rt_kind_table[k];
        ck_assert_int_eq(rt_kind_lookup(i->name, strlen(i->name)), k);
        /* The headline starts with the severity, as the kernel's do. */
        ck_assert_int_eq(strncmp(i->headline, rt_severity_name(i->severity), strlen(rt_severity_name(i->severity))), 0);
    }
    ck_assert_int_eq(rt_kind_lookup("no-such-kind", 12), -1);
    ck_assert_int_eq(rt_kind_table[RT_KIND_RCU_STALL].severity, RT_SEV_INFO);
    ck_assert_int_eq(rt_kind_table[RT_KIND_LATENT_LOCK_ORDER].severity, RT_SEV_INFO);
    ck_assert_int_eq(rt_kind_table[RT_KIND_INVALID_LOCK].severity, RT_SEV_WARNING);
    ck_assert_int_eq(rt_kind_table[RT_KIND_SEM_MISUSE].severity, RT_SEV_WARNING);
    ck_assert_int_eq(rt_kind_table[RT_KIND_BARRIER_MISUSE].severity, RT_SEV_WARNING);
    ck_assert_int_eq(rt_kind_table[RT_KIND_FAILED_CALL].severity, RT_SEV_WARNING);
    ck_assert_int_eq(rt_kind_table[RT_KIND_COND_SIGNAL_UNLOCKED].severity, RT_SEV_INFO);
}
END_TEST

START_TEST(glob_matching)
{
    ck_assert(rt_glob_match("policy_*", "policy_gc_task"));
    ck_assert(rt_glob_match("*gc*", "policy_gc_task"));
    ck_assert(rt_glob_match("x?rm", "xfrm"));
    ck_assert(rt_glob_match("*", ""));
    ck_assert(!rt_glob_match("policy_*", "worker"));
    ck_assert(!rt_glob_match("a*b", "acbd"));
}
END_TEST

START_TEST(parses_rules_and_matches)
{
    const char text[] = "# known bugs\n\nactive-lock-freed:policy_gc_*\n  * : libfoo.so  # any kind\n";
    char e[256];
    struct rt_buf err;
    rt_buf_init(&err, e, sizeof e);
    struct rt_suppressions *s = rt_suppressions_parse(text, sizeof text - 1, "supp", &err);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(rt_suppressions_count(s), 2);
    const char *frames[] = { "main", "policy_gc_task" };
    ck_assert(rt_suppressions_match(s, "active-lock-freed", frames, 2));
    ck_assert(!rt_suppressions_match(s, "bad-unlock", frames, 2));
    const char *mods[] = { "libfoo.so" };
    ck_assert(rt_suppressions_match(s, "bad-unlock", mods, 1));
}
END_TEST

START_TEST(bad_lines_name_the_line)
{
    char e[256];
    struct rt_buf err;
    rt_buf_init(&err, e, sizeof e);
    const char t1[] = "active-lock-freed:x\nno colon here\n";
    ck_assert_ptr_null(rt_suppressions_parse(t1, sizeof t1 - 1, "f.supp", &err));
    ck_assert_str_eq(e, "f.supp:2: expected KIND:PATTERN, got 'no colon here'");
    rt_buf_init(&err, e, sizeof e);
    const char t2[] = "\n\nnot-a-kind:foo\n";
    ck_assert_ptr_null(rt_suppressions_parse(t2, sizeof t2 - 1, "f.supp", &err));
    ck_assert_ptr_nonnull(strstr(e, "f.supp:3: unknown report kind 'not-a-kind'"));
    rt_buf_init(&err, e, sizeof e);
    const char t3[] = "bad-unlock:\n";
    ck_assert_ptr_null(rt_suppressions_parse(t3, sizeof t3 - 1, "f.supp", &err));
    ck_assert_str_eq(e, "f.supp:1: empty pattern");
}
END_TEST

Suite *kinds_suite(void)
{
    Suite *s = suite_create("kinds");
    TCase *tc = tcase_create("kinds");
    tcase_add_test(tc, kinds_table_matches_contract_headlines);
    suite_add_tcase(s, tc);
    return s;
}

Suite *suppress_suite(void)
{
    Suite *s = suite_create("suppress");
    TCase *tc = tcase_create("suppress");
    tcase_add_test(tc, glob_matching);
    tcase_add_test(tc, parses_rules_and_matches);
    tcase_add_test(tc, bad_lines_name_the_line);
    suite_add_tcase(s, tc);
    return s;
}
