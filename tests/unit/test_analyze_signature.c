/* The de-duplication signature and the finding titles. */
#include "../analyze/unit_helpers.h"
#include "report/kinds.h"
#include "signature.h"
#include <stdio.h>
#include <string.h>

static void sign_text(const char *text, struct az_signature *sig)
{
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_null(c.reports[0]->corrupt);
    az_signature_compute(c.reports[0], sig);
    collected_free(&c);
}

START_TEST(function_names_are_normalized)
{
    static const char *const cases[][2] = {
        {"device_release.isra.0", "device_release"}, {"f.constprop.3", "f"}, {"f.part.1", "f"}, {"f.cold", "f"},
        {"f.isra.0.cold", "f"}, {"f.lto_priv.0", "f"}, {"__libc_start_main@@GLIBC_2.34", "__libc_start_main"},
        {"memcpy@GLIBC_2.2.5", "memcpy"}, {"plain", "plain"}, {"a.b", "a.b"}, {"x.coldness", "x.coldness"},
        {"Account::move(int) [clone .isra.0]", "Account::move(int)"}, {"std::mutex::lock()", "std::mutex::lock()"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[128];
        az_normalize_function(cases[i][0], out, sizeof out);
        ck_assert_str_eq(out, cases[i][1]);
    }
}
END_TEST

START_TEST(boilerplate_frames)
{
    struct az_frame f = {0};
    const char *skipped[] = {"malloc", "free", "pthread_mutex_lock", "pthread_mutex_unlock", "__libc_start_main",
                             "start_thread", "rtdd_free", "__GI___clone3", "pthread_rwlock_wrlock",
                             "rcu_read_lock", "rcu_read_unlock"};
    for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
        f.function = skipped[i];
        ck_assert_msg(az_frame_is_boilerplate(&f, 0), "%s", skipped[i]);
    }
    f.function = "policy_gc_task";
    ck_assert(!az_frame_is_boilerplate(&f, 0));
    f.module = "libc.so.6";
    ck_assert(az_frame_is_boilerplate(&f, 0)); /* libc internals, whatever their name */
    f.module = "librtdd.so";
    ck_assert(az_frame_is_boilerplate(&f, 0));
    f.module = NULL;
    /* Workqueue and lockdep frames are boilerplate in the kernel, not in user programs. */
    f.function = "worker_thread";
    ck_assert(!az_frame_is_boilerplate(&f, 0));
    ck_assert(az_frame_is_boilerplate(&f, 1));
    f.function = "check_no_locks_freed";
    ck_assert(az_frame_is_boilerplate(&f, 1));
    /* C++: the library's headers inlined into the program, and libstdc++ itself. */
    f.function = "std::mutex::lock()";
    f.file = "/usr/include/c++/12/bits/std_mutex.h";
    ck_assert(az_frame_is_boilerplate(&f, 0));
    f.function = "__gthread_mutex_lock";
    f.file = "/usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h";
    ck_assert(az_frame_is_boilerplate(&f, 0));
    f.function = "record_audit()";
    f.file = "tests/programs/cxx_lock_order.cpp";
    ck_assert(!az_frame_is_boilerplate(&f, 0));
    f.file = NULL;
    f.module = "libstdc++.so.6";
    ck_assert(az_frame_is_boilerplate(&f, 0));
}
END_TEST

START_TEST(seed_title_and_frames)
{
    struct az_signature sig;
    sign_text(seed_kernel_report, &sig);
    ck_assert_str_eq(sig.title, "active lock freed in xfrm_policy_gc_task");
    ck_assert_uint_eq(sig.nframes[0], 1);
    ck_assert_str_eq(sig.frames[0][0], "xfrm_policy_gc_task");
    ck_assert_int_eq(sig.guilty_frame, 3);
    ck_assert_uint_eq(strlen(sig.hex), AZ_SIG_HEX);
}
END_TEST

START_TEST(text_and_json_of_one_bug_agree)
{
    /* Other pids, addresses, offsets, line numbers and times: the same signature. */
    struct az_signature a, b;
    sign_text(xfrm_text_report, &a);
    sign_text(xfrm_json_report, &b);
    ck_assert_str_eq(a.hex, b.hex);
    ck_assert_str_eq(a.title, "active lock freed in policy_gc_task");
    ck_assert_str_eq(a.title, b.title);
    /* Two stacks count: where it was freed and where the lock was taken. */
    ck_assert_uint_eq(a.nframes[0], 2);
    ck_assert_str_eq(a.frames[0][1], "worker_thread");
    ck_assert_uint_eq(a.nframes[1], 1);
    ck_assert_str_eq(a.frames[1][0], "policy_user");
}
END_TEST

static char *replace(const char *text, const char *from, const char *to)
{
    static char buf[8192];
    const char *at = strstr(text, from);
    ck_assert_ptr_nonnull(at);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return buf;
}

START_TEST(other_functions_make_other_findings)
{
    struct az_signature a, b, c;
    sign_text(xfrm_text_report, &a);
    sign_text(replace(xfrm_text_report, "policy_user+0x24", "other_user+0x24"), &b);
    ck_assert_str_ne(a.hex, b.hex);
    /* The third stack (where the lock was initialized) does not count. */
    sign_text(replace(xfrm_text_report, "main+0x49", "start+0x49"), &c);
    ck_assert_str_eq(a.hex, c.hex);
    /* Nor does a wrapper frame between the guilty ones. */
    sign_text(replace(xfrm_text_report, " [<00005624084532d2>] worker_thread",
                      " [<0000562408453200>] free+0x1/0x2 (16) libc.so.6+0x1200\n [<00005624084532d2>] worker_thread"),
              &c);
    ck_assert_str_eq(a.hex, c.hex);
}
END_TEST

static const char loi_thread_a[] =
    "------------[ cut here ]------------\n"
    "WARNING: possible circular locking dependency detected\n"
    "CPU: 1 PID: 10 TID: 11 Comm: reader Time: 2026-12-03T08:00:00.000Z\n"
    "reader/11 is trying to acquire lock:\n"
    " [<0000000000001a2c>] lookup+0x3c/0x90 (48) app+0x1a2c c.c:88\n"
    "but the thread already holds:\n"
    " [<00000000000019f8>] lookup+0x08/0x90 (48) app+0x19f8 c.c:84\n"
    "-> #1 (stats_lock), while holding cfg_mutex, at:\n"
    " [<0000000000001b80>] replace+0x50/0xa0 (64) app+0x1b80 c.c:101\n"
    "cycle: stats_lock -> cfg_mutex -> [0x7f00aa] -> stats_lock\n"
    "SUMMARY: rtdd: lock-order-inversion c.c:88 in lookup\n"
    "---[ end report ]---\n";
static const char loi_thread_b[] =
    "------------[ cut here ]------------\n"
    "WARNING: possible circular locking dependency detected\n"
    "CPU: 0 PID: 20 TID: 23 Comm: updater Time: 2026-12-03T08:00:00.000Z\n"
    "updater/23 is trying to acquire lock:\n"
    " [<0000000000001b80>] replace+0x50/0xa0 (64) app+0x1b80 c.c:101\n"
    "-> #1 (cfg_mutex) at:\n"
    " [<0000000000001a2c>] lookup+0x3c/0x90 (48) app+0x1a2c c.c:88\n"
    "cycle: cfg_mutex -> [0x7f00bb] -> stats_lock -> cfg_mutex\n"
    "SUMMARY: rtdd: lock-order-inversion c.c:101 in replace\n"
    "---[ end report ]---\n";

START_TEST(a_cycle_is_one_finding_from_either_thread)
{
    struct az_signature a, b, c;
    sign_text(loi_thread_a, &a);
    sign_text(loi_thread_b, &b);
    ck_assert_str_eq(a.hex, b.hex);
    ck_assert_uint_eq(a.ncycle_functions, 2);
    ck_assert_str_eq(a.cycle_functions[0], "lookup");
    ck_assert_str_eq(a.cycle_functions[1], "replace");
    ck_assert_str_eq(a.title, "possible deadlock in lookup");
    /* Another lock in the cycle is another bug. */
    sign_text(replace(loi_thread_b, "cycle: cfg_mutex", "cycle: other_mutex"), &c);
    ck_assert_str_ne(a.hex, c.hex);
    /* An unnamed GLib bit lock's address changes every run too. */
    struct az_signature d, e;
    sign_text(replace(loi_thread_a, "[0x7f00aa]", "[bit 1 of the word at 0x7f00aa]"), &d);
    sign_text(replace(loi_thread_a, "[0x7f00aa]", "[bit 1 of the word at 0x7f00dd]"), &e);
    ck_assert_str_eq(d.hex, e.hex);
    ck_assert_str_eq(d.hex, a.hex);
}
END_TEST

START_TEST(unsymbolized_frames_fall_back_to_module_offsets)
{
    static const char text[] =
        "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n"
        "CPU: 0 PID: 1 TID: 1 Comm: x Time: 2026-12-03T08:00:00.000Z\nmemory freed at:\n"
        " [<00005602f9f6825e>] ?? (32) /opt/app/xfrm_gc+0x125e\n"
        " [<00007fb705aa71f5>] ?? (160) libc.so.6+0x891f5\n"
        "SUMMARY: rtdd: active-lock-freed xfrm_gc+0x125e in ??\n---[ end report ]---\n";
    struct az_signature sig;
    sign_text(text, &sig);
    ck_assert_uint_eq(sig.nframes[0], 1);
    ck_assert_str_eq(sig.frames[0][0], "xfrm_gc+0x125e");
    ck_assert_str_eq(sig.title, "active lock freed in xfrm_gc+0x125e");
}
END_TEST

Suite *analyze_signature_suite(void)
{
    Suite *s = suite_create("analyze-signature");
    TCase *tc = tcase_create("signature");
    tcase_add_test(tc, function_names_are_normalized);
    tcase_add_test(tc, boilerplate_frames);
    tcase_add_test(tc, seed_title_and_frames);
    tcase_add_test(tc, text_and_json_of_one_bug_agree);
    tcase_add_test(tc, other_functions_make_other_findings);
    tcase_add_test(tc, a_cycle_is_one_finding_from_either_thread);
    tcase_add_test(tc, unsymbolized_frames_fall_back_to_module_offsets);
    suite_add_tcase(s, tc);
    return s;
}
