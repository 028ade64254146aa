#include "detect/suites.h"
#include "core/rt_fmt.h"
#include <string.h>

START_TEST(formats_conversions)
{
    char s[256];
    struct rt_buf b;
    rt_buf_init(&b, s, sizeof s);
    rt_buf_printf(&b, "%d|%5d|%-4d|%05d|%u|%x|%lx|%s|%.*s|%c|%%|%p", -42, 7, 3, 42, 4000000000u, 255u,
                  0xdeadbeefUL, "str", 2, "abcdef", 'Z', (void *)0x1000);
    ck_assert_str_eq(s, "-42|    7|3   |00042|4000000000|ff|deadbeef|str|ab|Z|%|0x1000");
    ck_assert_int_eq(b.truncated, 0);
}
END_TEST

START_TEST(truncates_and_stays_terminated)
{
    char s[8];
    struct rt_buf b;
    rt_buf_init(&b, s, sizeof s);
    rt_buf_puts(&b, "0123456789");
    ck_assert_str_eq(s, "0123456");
    ck_assert_int_eq(b.truncated, 1);
    ck_assert_uint_eq(b.len, 7);
}
END_TEST

START_TEST(escapes_json)
{
    char s[64];
    struct rt_buf b;
    rt_buf_init(&b, s, sizeof s);
    rt_buf_json_str(&b, "a\"b\\c\n\x01");
    ck_assert_str_eq(s, "a\\\"b\\\\c\\u000a\\u0001");
}
END_TEST

Suite *fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("fmt");
    tcase_add_test(tc, formats_conversions);
    tcase_add_test(tc, truncates_and_stays_terminated);
    tcase_add_test(tc, escapes_json);
    suite_add_tcase(s, tc);
    return s;
}
