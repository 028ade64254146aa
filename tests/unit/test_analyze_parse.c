/* The parser: rtdd text and JSON reports, kernel reports, log prefixes,
 * and what it does with truncated, interleaved and corrupt input. */
#include "../analyze/unit_helpers.h"
#include "input.h"
#include "report/demangle.h"
#include "report/kinds.h"
#include "parse_kernel.h"
#include "parse_text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(text_report_fields)
{
    struct collected c = {0};
    parse_into(&c, xfrm_text_report);
    ck_assert_uint_eq(c.n, 1);
    struct az_report *r = c.reports[0];
    ck_assert_ptr_null(r->corrupt);
    ck_assert_int_eq(r->kind, RT_KIND_ACTIVE_LOCK_FREED);
    ck_assert_int_eq(r->origin, AZ_ORIGIN_TEXT);
    ck_assert_str_eq(r->comm, "gc_worker");
    ck_assert_str_eq(r->time, "2026-12-03T08:23:45.505Z");
    ck_assert_str_eq(r->location, "xfrm_gc.c:38");
    ck_assert_str_eq(r->function, "policy_gc_task");
    ck_assert_uint_eq(r->line, 1);
    ck_assert_uint_eq(r->end_line, 16);
    ck_assert_uint_eq(r->nsections, 3);
    ck_assert_str_eq(r->sections[0].title, "memory [0x56240eaf02a0-0x56240eaf0318] freed by gc_worker/4042 at:");
    ck_assert_uint_eq(r->sections[0].nframes, 3);
    const struct az_frame *f = &r->sections[0].frames[0];
    ck_assert_str_eq(f->function, "policy_gc_task");
    ck_assert_str_eq(f->file, "examples/xfrm_gc.c");
    ck_assert_uint_eq(f->line, 38);
    ck_assert_str_eq(f->module, "xfrm_gc");
    ck_assert_uint_eq(f->module_offset, 0x126d);
    ck_assert_uint_eq(f->pc, 0x56240845326dULL);
    ck_assert_str_eq(r->sections[0].frames[2].file, "./nptl/pthread_create.c");
    ck_assert_uint_eq(r->nmodules, 2);
    ck_assert_str_eq(r->modules[0].build_id, "72c93cb194d0fff976117e79e9b83e14c058fd9d");
    ck_assert_str_eq(r->modules[1].path, "/lib/x86_64-linux-gnu/libc.so.6");
    collected_free(&c);
}
END_TEST

START_TEST(frame_line_shapes)
{
    struct az_report r;
    az_report_init(&r);
    struct az_frame f;
    const char *inl = " [<000056170cfd925e>] policy_gc_task (inlined) xfrm_gc+0x125e examples/xfrm_gc.c:39";
    ck_assert_int_eq(az_text_frame(&r, inl, strlen(inl), &f), 0);
    ck_assert(f.inlined);
    ck_assert_str_eq(f.function, "policy_gc_task");
    ck_assert_uint_eq(f.line, 39);
    const char *unsym = " [<00005602f9f6825e>] ?? (32) xfrm_gc+0x125e";
    ck_assert_int_eq(az_text_frame(&r, unsym, strlen(unsym), &f), 0);
    ck_assert_ptr_null(f.function);
    ck_assert_ptr_null(f.file);
    ck_assert_str_eq(f.module, "xfrm_gc");
    ck_assert_uint_eq(f.module_offset, 0x125e);
    /* A C++ name with blanks and parentheses of its own. */
    const char *cxx = " [<0000000000401136>] ns::f(int, char) const+0x10/0x20 (16) app+0x1136 src/a b.cc:7";
    ck_assert_int_eq(az_text_frame(&r, cxx, strlen(cxx), &f), 0);
    ck_assert_str_eq(f.function, "ns::f(int, char) const");
    ck_assert_str_eq(f.file, "src/a b.cc");
    ck_assert_uint_eq(f.line, 7);
    const char *versioned = " [<00007f9780445305>] __libc_start_main@@GLIBC_2.34+0x85/0x141 (80) libc.so.6+0x27305";
    ck_assert_int_eq(az_text_frame(&r, versioned, strlen(versioned), &f), 0);
    ck_assert_str_eq(f.function, "__libc_start_main@@GLIBC_2.34");
    /* Malformed: no module reference, no symbol end, garbage address. */
    const char *bad[] = {" [<0000000000401136>] main+0x10/0x20 (16)", " [<0000000000401136>] main",
                         " [<zz>] main+0x1/0x2 (8) app+0x1", " [<0000000000401136>] main+0x1/0x2 (8) app"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_int_eq(az_text_frame(&r, bad[i], strlen(bad[i]), &f), -1);
    az_report_destroy(&r);
}
END_TEST

START_TEST(json_report_fields)
{
    struct collected c = {0};
    parse_into(&c, xfrm_json_report);
    ck_assert_uint_eq(c.n, 1);
    struct az_report *r = c.reports[0];
    ck_assert_ptr_null(r->corrupt);
    ck_assert_int_eq(r->origin, AZ_ORIGIN_JSON);
    ck_assert_int_eq(r->kind, RT_KIND_ACTIVE_LOCK_FREED);
    ck_assert_str_eq(r->time, "2026-12-03T09:00:00.000Z");
    ck_assert_uint_eq(r->nsections, 3);
    ck_assert(r->sections[0].is_stack);
    ck_assert(!r->sections[2].is_stack);
    ck_assert_uint_eq(r->sections[0].nframes, 2);
    ck_assert_uint_eq(r->sections[0].frames[0].module_offset, 0x1270);
    ck_assert_uint_eq(r->sections[0].frames[0].line, 40);
    ck_assert_str_eq(r->modules[0].name, "xfrm_gc");
    collected_free(&c);
    /* The cycle from the "cycle" field; a "cycle:" text line as well must not double it. */
    static const char with_cycle[] =
        "{\"rtdd\":1,\"kind\":\"deadlock\",\"sections\":[{\"title\":\"cycle: a -> b -> a\"}],"
        "\"cycle\":[\"a\",\"b\",\"a\"]}\n"
        "{\"rtdd\":1,\"kind\":\"deadlock\",\"sections\":[{\"title\":\"cycle: c -> d -> c\"}]}\n";
    parse_into(&c, with_cycle);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_uint_eq(c.reports[0]->ncycle, 3);
    ck_assert_str_eq(c.reports[0]->cycle[1], "b");
    ck_assert_uint_eq(c.reports[1]->ncycle, 3);
    ck_assert_str_eq(c.reports[1]->cycle[0], "c");
    collected_free(&c);
}
END_TEST

START_TEST(seed_kernel_report_parses)
{
    struct collected c = {0};
    parse_into(&c, seed_kernel_report);
    ck_assert_uint_eq(c.n, 1);
    struct az_report *r = c.reports[0];
    ck_assert_ptr_null(r->corrupt);
    ck_assert_int_eq(r->origin, AZ_ORIGIN_KERNEL);
    ck_assert_int_eq(r->kind, RT_KIND_ACTIVE_LOCK_FREED);
    ck_assert_str_eq(r->headline, "BUG: events/0/4, active lock [e94a8cdc(e94a8cd0-e94a90dc)] freed!");
    ck_assert_uint_eq(r->line, 3);
    ck_assert_uint_eq(az_report_frame_count(r), 7);
    ck_assert_str_eq(r->sections[0].frames[3].function, "xfrm_policy_gc_task");
    ck_assert_uint_eq(r->sections[0].frames[3].pc, 0xc03638db);
    ck_assert_str_eq(r->sections[0].frames[6].function, "kernel_thread_helper");
    collected_free(&c);
}
END_TEST

START_TEST(log_prefixes_are_stripped)
{
    const char *lines[] = {"[  125.102347] WARNING: x", "<4>[    1.000000] WARNING: x", "[   12.5] [T123] WARNING: x",
                           "Mar 25 15:59:08 host kernel: WARNING: x", "<4>WARNING: x",
                           "Mar 25 15:59:08 host kernel: [   12.000001] WARNING: x"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        size_t n = strlen(lines[i]);
        size_t k = az_log_prefix_len(lines[i], n);
        ck_assert_str_eq(lines[i] + k, "WARNING: x");
    }
    ck_assert_uint_eq(az_log_prefix_len("[not a timestamp] x", 19), 0);
    ck_assert_uint_eq(az_log_prefix_len(" [<c0103e31>] f+0x1/0x2", 23), 0);
}
END_TEST

START_TEST(kernel_frame_shapes)
{
    struct az_report r;
    az_report_init(&r);
    struct az_frame f;
    ck_assert_int_eq(az_kernel_frame(&r, "  [<c0103e31>] dump_stack+0x1e/0x20 (20)", 40, &f), 1);
    ck_assert_str_eq(f.function, "dump_stack");
    ck_assert_int_eq(az_kernel_frame(&r, "       lock_acquire+0xd3/0x2f0", 30, &f), 1);
    ck_assert_int_eq(az_kernel_frame(&r, " cfg_update+0x5a/0x90 [mydrv]", 29, &f), 1);
    ck_assert_str_eq(f.module, "mydrv");
    ck_assert_int_eq(az_kernel_frame(&r, " cfg_update+0x5a/0x90 [mydrv 0123abcd]", 38, &f), 1);
    ck_assert_str_eq(f.module, "mydrv");
    ck_assert_int_eq(az_kernel_frame(&r, "  ? device_release+0x3a/0x240", 29, &f), -1);
    ck_assert_int_eq(az_kernel_frame(&r, "so i'd expect more+0x1/0x2 bugs", 31, &f), 0);
    ck_assert_int_eq(az_kernel_frame(&r, " the lock+0x12 is held", 22, &f), 0);
    ck_assert_int_eq(az_kernel_frame(&r, "", 0, &f), 0);
    az_report_destroy(&r);
}
END_TEST

static const char truncated_then_whole[] =
    "------------[ cut here ]------------\n"
    "BUG: t/1, active lock [0x1(0x1-0x2)] freed!\n"
    "CPU: 0 PID: 1 TID: 1 Comm: t Time: 2026-12-03T08:00:00.000Z\n"
    "memory [0x1-0x2] freed by t/1 at:\n"
    " [<0000000000001000>] f+0x1/0x2 (16) app+0x1000 a.c:1\n"
    " [<0000000000001000>] g+0x1/0x2 (16) app+0x1000 a.c:2\n";

START_TEST(cut_off_reports_are_listed)
{
    struct collected c = {0};
    char *text = malloc(4096);
    /* A report cut off by the next one, then a complete one, then one cut off by the end of the log. */
    snprintf(text, 4096, "%s%s%s", truncated_then_whole, xfrm_text_report, truncated_then_whole);
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 3);
    ck_assert_ptr_nonnull(c.reports[0]->corrupt);
    ck_assert_ptr_nonnull(strstr(c.reports[0]->corrupt, "cut off after 2 frames"));
    ck_assert_ptr_nonnull(strstr(c.reports[0]->corrupt, "a new report begins"));
    ck_assert_int_eq(c.reports[0]->kind, RT_KIND_ACTIVE_LOCK_FREED);
    ck_assert_uint_eq(c.reports[0]->line, 1);
    ck_assert_ptr_null(c.reports[1]->corrupt);
    ck_assert_uint_eq(c.reports[1]->line, 7);
    ck_assert_ptr_nonnull(strstr(c.reports[2]->corrupt, "the log ends"));
    ck_assert_uint_eq(c.reports[2]->line, 23);
    collected_free(&c);
    free(text);
}
END_TEST

/* A log that ends inside a frame line is a cut-off report, not a corrupt
 * one; the same bad frame with lines after it is corrupt. */
START_TEST(log_cut_mid_frame_is_truncated)
{
    static const char head[] = "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n"
                               "CPU: 0 PID: 1 TID: 1 Comm: x\nfreed at:\n"
                               " [<0000000000401136>] main+0x10/0x20 (32) x+0x1136 x.c:3\n";
    char text[1024];
    snprintf(text, sizeof text, "%s [<00000000004011", head);
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(c.reports[0]->corrupt);
    ck_assert_msg(strstr(c.reports[0]->corrupt, "cut off in the middle of a frame at line 6 (the log ends)"), "%s",
                  c.reports[0]->corrupt);
    collected_free(&c);
    snprintf(text, sizeof text, "%s [<00000000004011\nSUMMARY: rtdd: active-lock-freed x.c:3 in main\n"
                                "---[ end report ]---\n", head);
    struct collected d = {0};
    parse_into(&d, text);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_ptr_nonnull(strstr(d.reports[0]->corrupt, "malformed frame at line 6"));
    collected_free(&d);
}
END_TEST

/* The runtime's singular headlines of a deadlock are its kind too. */
START_TEST(one_thread_deadlock_headlines)
{
    static const char *const heads[] = {
        "BUG: deadlock detected, 1 thread blocked in a cycle",
        "BUG: deadlock detected, 1 thread blocked on a lock whose holder does not exist",
        "BUG: deadlock detected, 3 threads blocked in a cycle",
    };
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "------------[ cut here ]------------\n%s\nCPU: 0 PID: 1 TID: 1 Comm: x\nx/1 blocks, at:\n"
                 " [<0000000000401136>] main+0x10/0x20 (32) x+0x1136 x.c:3\nSUMMARY: rtdd: deadlock x.c:3 in main\n"
                 "---[ end report ]---\n",
                 heads[i]);
        struct collected c = {0};
        parse_into(&c, text);
        ck_assert_uint_eq(c.n, 1);
        ck_assert_msg(!c.reports[0]->corrupt, "%s: %s", heads[i], c.reports[0]->corrupt);
        ck_assert_int_eq(c.reports[0]->kind, RT_KIND_DEADLOCK);
        collected_free(&c);
    }
}
END_TEST

/* Two processes writing one log line by line: not a kernel report. */
START_TEST(interleaved_reports_are_not_kernel_reports)
{
    static const char text[] =
        "------------[ cut here ]------------\n"
        "------------[ cut here ]------------\n"
        "WARNING: bad unlock balance detected!\n"
        "WARNING: possible recursive locking detected\n"
        "CPU: 0 PID: 1 TID: 1 Comm: x\n"
        "CPU: 0 PID: 2 TID: 2 Comm: y\n"
        "SUMMARY: rtdd: bad-unlock x.c:3 in main\n"
        "SUMMARY: rtdd: recursive-locking y.c:4 in main\n"
        "---[ end report ]---\n"
        "---[ end report ]---\n";
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_ge(c.n, 1);
    for (unsigned i = 0; i < c.n; i++)
        ck_assert_int_ne(c.reports[i]->origin, AZ_ORIGIN_KERNEL);
    int said = 0;
    for (unsigned i = 0; i < c.n; i++)
        said |= c.reports[i]->corrupt && strstr(c.reports[i]->corrupt, "reports interleaved") != NULL;
    ck_assert(said);
    collected_free(&c);
}
END_TEST

START_TEST(corrupt_reports_are_listed)
{
    static const char *const cases[][2] = {
        {"------------[ cut here ]------------\nnot a headline\n---[ end report ]---\n", "no headline"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n"
         "CPU: 0 PID: 1 TID: 1 Comm: x\n---[ end report ]---\n", "no SUMMARY"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         " [<00zz>] f\nSUMMARY: rtdd: active-lock-freed [no stack] in ??\n---[ end report ]---\n", "malformed frame"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         "SUMMARY: rtdd: no-such-kind [no stack] in ??\n---[ end report ]---\n", "malformed SUMMARY"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         "ab\x01\x02\xff" "cd\nSUMMARY: rtdd: active-lock-freed [no stack] in ??\n---[ end report ]---\n", "binary data"},
        {"{\"rtdd\":1,\"kind\":\"active-lock-freed\",\"sections\":[{\"title\":\"x\",\"frames\":[{\"pc\":\n", "invalid JSON"},
        {"{\"rtdd\":1,\"kind\":\"nonsense\",\"sections\":[]}\n", "unknown kind"},
        {"{\"rtdd\":1,\"kind\":\"deadlock\",\"sections\":[]}{\"rtdd\":1,\"kind\n", "text after the object"},
        {"{\"rtdd\":1,\"kind\":\"deadlock\"}\n", "no \"sections\""},
        {"WARNING: possible circular locking dependency detected\nno frames at all here\n", "no frames"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         "module: build-id - base 0x1 path /x\nSUMMARY: rtdd: active-lock-freed [no stack] in ??\n---[ end report ]---\n",
         "malformed module line"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         "module: xfrm_gc build-id base 0x1000 path /x\nSUMMARY: rtdd: active-lock-freed [no stack] in ??\n"
         "---[ end report ]---\n", "malformed module line"},
        {"------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\nCPU: 0 PID: 1 TID: 1 Comm: x\n"
         "SUMMARY: rtdd: active-lock-freed in f\n---[ end report ]---\n", "malformed SUMMARY"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct collected c = {0};
        parse_into(&c, cases[i][0]);
        ck_assert_msg(c.n == 1, "case %zu: %u reports", i, c.n);
        ck_assert_msg(c.reports[0]->corrupt && strstr(c.reports[0]->corrupt, cases[i][1]), "case %zu: reason '%s'", i,
                      c.reports[0]->corrupt ? c.reports[0]->corrupt : "(none)");
        collected_free(&c);
    }
}
END_TEST

START_TEST(runtime_truncated_report_is_well_formed)
{
    static const char text[] =
        "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n"
        "CPU: 0 PID: 1 TID: 1 Comm: x Time: 2026-12-03T08:00:00.000Z\nmemory freed at:\n"
        " [<0000000000001000>] f+0x1/0x2 (16) app+0x1000 a.c:1\n[report truncated]\n"
        "SUMMARY: rtdd: active-lock-freed a.c:1 in f\n---[ end report ]---\n";
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_null(c.reports[0]->corrupt);
    ck_assert(c.reports[0]->runtime_truncated);
    collected_free(&c);
}
END_TEST

START_TEST(prefixed_ci_log_lines)
{
    /* A CI runner puts a fixed-width timestamp before every line. */
    char text[8192] = "";
    const char *s = xfrm_text_report;
    while (*s) {
        const char *nl = strchr(s, '\n');
        strcat(text, "2026-12-03T08:00:00.1234567Z ");
        strncat(text, s, (size_t)(nl - s + 1));
        s = nl + 1;
    }
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_null(c.reports[0]->corrupt);
    ck_assert_uint_eq(az_report_frame_count(c.reports[0]), 6);
    collected_free(&c);
}
END_TEST

START_TEST(kernel_lockdep_report_sections)
{
    static const char text[] =
        "[  125.102347] WARNING: possible circular locking dependency detected\n"
        "[  125.102349] 6.1.0-rc1 #1 Not tainted\n"
        "[  125.102351] kworker/u4:2/123 is trying to acquire lock:\n"
        "[  125.102353] ffff8881036a1e38 (&dev->mutex){+.+.}-{3:3}, at: device_release_driver_internal+0x3a/0x240\n"
        "[  125.102360] \n"
        "               -> #1 (cfg_lock){+.+.}-{3:3}:\n"
        "[  125.102380]        __mutex_lock+0x9d/0x920\n"
        "[  125.102383]        mydrv_probe+0x44/0x120 [mydrv]\n"
        "               -> #0 (&dev->mutex){+.+.}-{3:3}:\n"
        "[  125.102401]        device_release_driver_internal+0x3a/0x240\n"
        "[  125.102430] \n"
        "               stack backtrace:\n"
        "[  125.102435] Call Trace:\n"
        "[  125.102437]  dump_stack_lvl+0x5b/0x77\n"
        "[  125.102449]  ? device_release_driver_internal+0x3a/0x240\n"
        "[  125.102455]  device_release_driver_internal+0x3a/0x240\n"
        "[  125.200000] mydrv: device 3 removed\n";
    struct collected c = {0};
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    struct az_report *r = c.reports[0];
    ck_assert_ptr_null(r->corrupt);
    ck_assert_int_eq(r->kind, RT_KIND_LOCK_ORDER_INVERSION);
    ck_assert_uint_eq(r->end_line, 16);
    ck_assert_uint_eq(az_report_frame_count(r), 6); /* the unreliable "? " frame is left out */
    ck_assert_uint_eq(r->ncycle, 3);
    ck_assert_str_eq(r->cycle[0], "cfg_lock");
    ck_assert_str_eq(r->cycle[1], "&dev->mutex");
    ck_assert_str_eq(r->cycle[2], "cfg_lock");
    collected_free(&c);
}
END_TEST

START_TEST(overlong_lines_and_junk_from_a_file)
{
    /* 3 MB on one line inside a report, then binary junk, then a good report. */
    size_t big = 3u << 20, len = 0;
    char *text = malloc(big + 8192);
    len += (size_t)sprintf(text, "------------[ cut here ]------------\nBUG: x/1, active lock [0x1(0x1-0x2)] freed!\n");
    memset(text + len, 'A', big);
    len += big;
    text[len++] = '\n';
    for (int i = 0; i < 1000; i++)
        text[len++] = (char)(i * 37 % 256 ? i * 37 % 256 : 1);
    text[len++] = '\n';
    memcpy(text + len, xfrm_text_report, strlen(xfrm_text_report));
    len += strlen(xfrm_text_report);
    char *path = temp_file(text, len);
    struct collected c = {0};
    struct az_parser *p = az_parser_new(collect_report, &c);
    struct az_input_stats st = {0};
    char err[256];
    ck_assert_int_eq(az_read_log(path, p, 0, &st, err, sizeof err), 0);
    az_parser_free(p);
    ck_assert_uint_eq(st.bytes, len);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_ptr_nonnull(strstr(c.reports[0]->corrupt, "too long"));
    ck_assert_ptr_null(c.reports[1]->corrupt);
    collected_free(&c);
    unlink(path);
    free(path);
    free(text);
}
END_TEST

/* A log with mangled C++ names (an older runtime, symbolize=0 symbolized
 * by another tool): frames and the SUMMARY function read as C++. */
START_TEST(cxx_names_are_demangled)
{
    static const char report[] =
        "------------[ cut here ]------------\n"
        "WARNING: possible circular locking dependency detected\n"
        "CPU: 0 PID: 9 TID: 9 Comm: x Time: 2026-12-05T08:00:00.000Z\n"
        "x/9 is trying to acquire lock [0x10] _ZL8accounts (pthread_mutex_t), at:\n"
        " [<0000000000001001>] _ZNSt5mutex4lockEv (inlined) x+0x1001 /usr/include/c++/12/bits/std_mutex.h:100\n"
        " [<0000000000001001>] _Z12record_auditv+0x25/0x74 (32) x+0x1001 x.cpp:29\n"
        "SUMMARY: rtdd: lock-order-inversion x.cpp:29 in _Z12record_auditv\n"
        "---[ end report ]---\n";
    rt_demangle_may_load();
    struct collected c = {0};
    parse_into(&c, report);
    ck_assert_uint_eq(c.n, 1);
    const struct az_report *r = c.reports[0];
    ck_assert_str_eq(r->function, "record_audit()");
    ck_assert_str_eq(r->sections[0].frames[0].function, "std::mutex::lock()");
    ck_assert_str_eq(r->sections[0].frames[1].function, "record_audit()");
    char out[64];
    ck_assert_int_eq(rt_demangle("main", out, sizeof out), 0); /* C names stay */
    ck_assert_int_eq(rt_demangle("_ZNSt6thread6detachEv@@GLIBCXX_3.4.11", out, sizeof out), 1);
    ck_assert_str_eq(out, "std::thread::detach()@@GLIBCXX_3.4.11");
    collected_free(&c);
}
END_TEST

START_TEST(unreadable_input_says_why)
{
    struct collected c = {0};
    struct az_parser *p = az_parser_new(collect_report, &c);
    struct az_input_stats st = {0};
    char err[256];
    ck_assert_int_eq(az_read_log("/nonexistent/rtdd.log", p, 0, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open '/nonexistent/rtdd.log'"));
    ck_assert_int_eq(az_read_log("/", p, 0, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "directory"));
    az_parser_free(p);
    ck_assert_uint_eq(c.n, 0);
}
END_TEST

Suite *analyze_parse_suite(void)
{
    Suite *s = suite_create("analyze-parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, text_report_fields);
    tcase_add_test(tc, frame_line_shapes);
    tcase_add_test(tc, json_report_fields);
    tcase_add_test(tc, seed_kernel_report_parses);
    tcase_add_test(tc, log_prefixes_are_stripped);
    tcase_add_test(tc, kernel_frame_shapes);
    tcase_add_test(tc, cut_off_reports_are_listed);
    tcase_add_test(tc, corrupt_reports_are_listed);
    tcase_add_test(tc, log_cut_mid_frame_is_truncated);
    tcase_add_test(tc, interleaved_reports_are_not_kernel_reports);
    tcase_add_test(tc, one_thread_deadlock_headlines);
    tcase_add_test(tc, runtime_truncated_report_is_well_formed);
    tcase_add_test(tc, prefixed_ci_log_lines);
    tcase_add_test(tc, kernel_lockdep_report_sections);
    tcase_add_test(tc, overlong_lines_and_junk_from_a_file);
    tcase_add_test(tc, unreadable_input_says_why);
    tcase_add_test(tc, cxx_names_are_demangled);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return s;
}
