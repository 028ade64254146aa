/* Cycles by their sites (tools/analyze/cycle.c): read off lock-order
 * reports, the same cycle across runs whatever the addresses (ASLR), a
 * rerun's deadlock matched to it, the steering plan, and the "confirm:"
 * verdicts read back into findings. */
#include "cycle.h"
#include "report/kinds.h"
#include "../analyze/unit_helpers.h"
#include <stdlib.h>
#include <string.h>

#define LOI(A, EXTRA)                                                                                              \
    "------------[ cut here ]------------\n"                                                                       \
    "WARNING: possible circular locking dependency detected\n"                                                     \
    "CPU: 1 PID: 100 TID: 102 Comm: prog Time: 2026-12-06T10:02:54.874Z\n"                                        \
    "prog/102 is trying to acquire lock [0x" A "d0c0] accounts (pthread_mutex_t, static), at:\n"                   \
    " [<0000" A "a21b>] audit+0x42/0x6c (48) prog+0x121b prog.c:32\n"                                              \
    "but the thread already holds lock [0x" A "d080] journal (pthread_mutex_t, static), taken at:\n"               \
    " [<0000" A "a20c>] audit+0x33/0x6c (48) prog+0x120c prog.c:31\n"                                              \
    "which lock already depends on the new lock.\n"                                                                \
    "This deadlock is happening now: the other threads of the cycle are already blocked on its locks:\n"           \
    "prog/101 holds journal and is blocked waiting for accounts, at:\n"                                            \
    " [<0000" A "a1ff>] post+0x30/0x50 (32) prog+0x11ff prog.c:25\n"                                               \
    "The existing dependency chain (in reverse order) is:\n"                                                       \
    "-> #1 (journal): taken while holding accounts, by thread 101, at:\n"                                          \
    " [<0000" A "a1ad>] post+0x24/0x50 (32) prog+0x11ad prog.c:20\n"                                               \
    "   where accounts had been taken at:\n"                                                                       \
    " [<0000" A "a19e>] post+0x15/0x50 (32) prog+0x119e prog.c:19\n"                                              \
    "cycle: journal -> accounts -> journal\n" EXTRA                                                                \
    "module: prog build-id 0e5c86b67d779c0e66bef8b705030a9c58eb2a1e base 0x" A "9000 path /x/prog\n"              \
    "SUMMARY: rtdd: lock-order-inversion prog.c:32 in audit\n"                                                     \
    "---[ end report ]---\n"

#define DEADLOCK(A, SITE)                                                                                          \
    "------------[ cut here ]------------\n"                                                                       \
    "BUG: deadlock detected, 2 threads blocked in a cycle\n"                                                       \
    "CPU: 0 PID: 200 TID: 201 Comm: prog Time: 2026-12-06T10:02:55.874Z\n"                                        \
    "prog/201 blocked 500 ms waiting for [0x" A "d080] journal (pthread_mutex_t, static), held by prog/202, at:\n"  \
    " [<0000" A "a1ad>] post+0x24/0x50 (32) prog+" SITE " prog.c:20\n"                                             \
    "prog/202 blocked 500 ms waiting for [0x" A "d0c0] accounts (pthread_mutex_t, static), held by prog/201;\n"    \
    "cycle: journal -> accounts -> journal\n"                                                                      \
    "SUMMARY: rtdd: deadlock prog.c:20 in post\n"                                                                  \
    "---[ end report ]---\n"

static struct az_cycle cycle_of(const char *text)
{
    struct collected c = { .n = 0 };
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    struct az_cycle cy;
    ck_assert_int_eq(az_cycle_from_report(c.reports[0], &cy), 0);
    collected_free(&c);
    return cy;
}

START_TEST(edges_are_read_off_the_report_by_site)
{
    struct az_cycle c = cycle_of(LOI("55a93b45", ""));
    ck_assert_uint_eq(c.nedges, 2);
    /* The "happening now" wait is no edge. */
    ck_assert_str_eq(c.edges[0].acquire, "prog+0x121b");
    ck_assert_str_eq(c.edges[0].held, "prog+0x120c");
    ck_assert_str_eq(c.edges[1].acquire, "prog+0x11ad");
    ck_assert_str_eq(c.edges[1].held, "prog+0x119e");
    ck_assert_str_eq(c.names, "journal -> accounts -> journal");
    /* Another run, other addresses: the same cycle. */
    struct az_cycle moved = cycle_of(LOI("5600aaaa", ""));
    ck_assert(az_cycle_same(&c, &moved));
    /* Edges in another order: the same cycle; another site: another. */
    struct az_cycle swapped = c;
    swapped.edges[0] = c.edges[1];
    swapped.edges[1] = c.edges[0];
    ck_assert(az_cycle_same(&c, &swapped));
    swapped.edges[0].held[strlen(swapped.edges[0].held) - 1] = 'f';
    ck_assert(!az_cycle_same(&c, &swapped));
}
END_TEST

START_TEST(a_report_without_sites_has_no_cycle)
{
    /* A frame without a module offset: no site to steer at. */
    const char *text = "------------[ cut here ]------------\n"
                       "WARNING: possible circular locking dependency detected\n"
                       "CPU: 1 PID: 100 TID: 102 Comm: prog Time: 2026-12-06T10:02:54.874Z\n"
                       "prog/102 is trying to acquire lock [0x10] a (pthread_mutex_t, static), at:\n"
                       " (stack unavailable)\n"
                       "but the thread already holds lock [0x20] b (pthread_mutex_t, static), taken at:\n"
                       " (stack unavailable)\n"
                       "cycle: b -> a -> b\n"
                       "SUMMARY: rtdd: lock-order-inversion [no stack] in ??\n"
                       "---[ end report ]---\n";
    struct collected c = { .n = 0 };
    parse_into(&c, text);
    ck_assert_uint_eq(c.n, 1);
    struct az_cycle cy;
    ck_assert_int_eq(az_cycle_from_report(c.reports[0], &cy), -1);
    collected_free(&c);
}
END_TEST

START_TEST(a_rerun_deadlock_is_matched_by_its_sites)
{
    struct az_cycle c = cycle_of(LOI("55a93b45", ""));
    struct collected d = { .n = 0 };
    parse_into(&d, DEADLOCK("5600aaaa", "0x11ad") DEADLOCK("5600aaaa", "0x2000"));
    ck_assert_uint_eq(d.n, 2);
    ck_assert_int_eq(az_cycle_deadlock_matches(&c, d.reports[0]), 1);
    /* A deadlock elsewhere in the program is not this cycle's. */
    ck_assert_int_eq(az_cycle_deadlock_matches(&c, d.reports[1]), 0);
    collected_free(&d);
}
END_TEST

START_TEST(the_plan_names_every_edge)
{
    struct az_cycle c = cycle_of(LOI("55a93b45", ""));
    char plan[1024];
    ck_assert_int_gt(az_cycle_plan(&c, -1, 1500, plan, sizeof plan), 0);
    ck_assert_ptr_nonnull(strstr(plan, "rtdd-confirm-plan 1\n"));
    ck_assert_ptr_nonnull(strstr(plan, "pause_ms 1500\n"));
    ck_assert_ptr_nonnull(strstr(plan, "edge prog+0x121b prog+0x120c\n"));
    ck_assert_ptr_nonnull(strstr(plan, "edge prog+0x11ad prog+0x119e\n"));
    ck_assert_ptr_null(strstr(plan, "no_pause"));
    ck_assert_int_gt(az_cycle_plan(&c, 1, 1500, plan, sizeof plan), 0);
    ck_assert_ptr_nonnull(strstr(plan, "no_pause 1\n"));
    ck_assert_int_eq(az_cycle_plan(&c, -1, 1500, plan, 40), -1);
}
END_TEST

#define COND_REPORT                                                                                                \
    "------------[ cut here ]------------\n"                                                                       \
    "WARNING: possible circular locking dependency detected through a wait on a condition variable or semaphore\n" \
    "CPU: 0 PID: 300 TID: 302 Comm: prog Time: 2026-12-06T10:40:37.978Z\n"                                        \
    "prog/302 waits on semaphore [0x55de279d00a0] flushed (sem_t, initialized at prog.c:31 in main) while "        \
    "holding stats_lock, at:\n"                                                                                     \
    " [<000055de279cd229>] reporter+0x3e/0x68 (32) prog+0x1229 prog.c:14\n"                                        \
    "stats_lock was taken by prog/302 at:\n"                                                                       \
    " [<000055de279cd21d>] reporter+0x32/0x68 (32) prog+0x121d prog.c:13\n"                                        \
    "but prog/303, which posts flushed, holds stats_lock when it does, taken at:\n"                                \
    " [<000055de279cd1c9>] flusher+0x10/0x32 (16) prog+0x11c9 prog.c:22\n"                                         \
    "and posted flushed at:\n"                                                                                     \
    " [<000055de279cd1dc>] flusher+0x23/0x32 (16) prog+0x11dc prog.c:24\n"                                         \
    "module: prog build-id f160921477317c011dcc3dbf31d127335a38c20c base 0x55de279cc000 path /x/prog\n"           \
    "SUMMARY: rtdd: cond-lock-order prog.c:14 in reporter\n"                                                       \
    "---[ end report ]---\n"

#define COND_DEADLOCK(LOCK_SITE)                                                                                   \
    "------------[ cut here ]------------\n"                                                                       \
    "BUG: deadlock detected, all 3 threads blocked, none can wake another\n"                                       \
    "CPU: 0 PID: 400 TID: 401 Comm: prog Time: 2026-12-06T10:40:41.633Z\n"                                        \
    "prog/401 blocked 751 ms waiting on semaphore [0x559eb9ac10a0] flushed (sem_t, initialized at prog.c:32 in "   \
    "main), at:\n"                                                                                                  \
    " [<0000559eb9abe229>] reporter+0x3e/0x68 (32) prog+0x1229 prog.c:14\n"                                        \
    "prog/402 blocked 500 ms waiting for [0x559eb9ac10c0] stats_lock (pthread_mutex_t, static), held by "          \
    "prog/401, at:\n"                                                                                               \
    " [<0000559eb9abe1c9>] flusher+0x10/0x32 (16) prog+" LOCK_SITE " prog.c:22\n"                                  \
    "prog/400 blocked 751 ms in pthread_join, joining prog/402, at:\n"                                             \
    " [<0000559eb9abe2a0>] main+0x50/0x80 (16) prog+0x12a0 prog.c:40\n"                                            \
    "SUMMARY: rtdd: deadlock prog.c:14 in reporter\n"                                                              \
    "---[ end report ]---\n"

/* A cond-lock-order report: the wait (holding the lock taken where the
 * report says) and the signaller's lock call, which needs no held lock;
 * confirmed by a deadlock with a thread blocked at each. */
START_TEST(a_cond_cycle_is_the_wait_and_the_signallers_lock_call)
{
    struct az_cycle c = cycle_of(COND_REPORT);
    ck_assert_int_eq(c.cond, 1);
    ck_assert_uint_eq(c.nedges, 2);
    ck_assert_str_eq(c.edges[0].acquire, "prog+0x1229");
    ck_assert_str_eq(c.edges[0].held, "prog+0x121d");
    ck_assert_str_eq(c.edges[1].acquire, "prog+0x11c9");
    ck_assert_str_eq(c.edges[1].held, "-");
    ck_assert_str_eq(c.names, "stats_lock -> flushed -> stats_lock");
    char plan[1024];
    ck_assert_int_gt(az_cycle_plan(&c, -1, 1500, plan, sizeof plan), 0);
    ck_assert_ptr_nonnull(strstr(plan, "\nwait prog+0x1229 prog+0x121d\nedge prog+0x11c9 -\n"));
    struct collected d = { .n = 0 };
    parse_into(&d, COND_DEADLOCK("0x11c9"));
    ck_assert_uint_eq(d.n, 1);
    ck_assert(az_cycle_deadlock_matches(&c, d.reports[0]));
    collected_free(&d);
    /* The lock waited for elsewhere: another deadlock, not this cycle. */
    struct collected e = { .n = 0 };
    parse_into(&e, COND_DEADLOCK("0x11f0"));
    ck_assert(!az_cycle_deadlock_matches(&c, e.reports[0]));
    collected_free(&e);
}
END_TEST

START_TEST(verdicts_are_read_back_into_findings)
{
    struct az_analysis a;
    az_analysis_init(&a);
    analyse_text(&a, "confirmed.log",
                 LOI("55a93b45", "confirm: confirmed: BUG: rerun 2 of 3 deadlocked in this cycle (steered)\n"
                                 "confirm:   wait-for: cycle: journal -> accounts -> journal\n"));
    ck_assert_uint_eq(a.nfindings, 1);
    const struct az_finding *f = a.findings[0];
    ck_assert_int_eq(f->confirm, AZ_CONFIRM_CONFIRMED);
    ck_assert_int_eq(az_finding_severity(f), RT_SEV_BUG);
    ck_assert_ptr_nonnull(strstr(f->confirm_detail, "rerun 2 of 3"));
    az_analysis_destroy(&a);

    az_analysis_init(&a);
    analyse_text(&a, "plain.log", LOI("55a93b45", ""));
    ck_assert_int_eq(a.findings[0]->confirm, AZ_CONFIRM_NOT_TRIED);
    ck_assert_int_eq(az_finding_severity(a.findings[0]), RT_SEV_WARNING);
    /* The same cycle, not confirmed in another log, then confirmed in a third: confirmed wins. */
    analyse_text(&a, "no.log", LOI("5600aaaa", "confirm: not confirmed in 3 reruns (steered)\n"));
    ck_assert_uint_eq(a.nfindings, 1);
    ck_assert_int_eq(a.findings[0]->confirm, AZ_CONFIRM_NOT_CONFIRMED);
    ck_assert_int_eq(az_finding_severity(a.findings[0]), RT_SEV_WARNING);
    analyse_text(&a, "yes.log", LOI("5611bbbb", "confirm: confirmed: BUG: rerun 1 of 3 deadlocked in this cycle\n"));
    ck_assert_int_eq(a.findings[0]->confirm, AZ_CONFIRM_CONFIRMED);
    analyse_text(&a, "no2.log", LOI("5622cccc", "confirm: not confirmed in 3 reruns (steered)\n"));
    ck_assert_int_eq(a.findings[0]->confirm, AZ_CONFIRM_CONFIRMED);
    ck_assert_str_eq(az_confirm_name(a.findings[0]->confirm), "confirmed");
    az_analysis_destroy(&a);
}
END_TEST

Suite *analyze_cycle_suite(void)
{
    Suite *s = suite_create("analyze-cycle");
    TCase *tc = tcase_create("cycle");
    tcase_add_test(tc, edges_are_read_off_the_report_by_site);
    tcase_add_test(tc, a_report_without_sites_has_no_cycle);
    tcase_add_test(tc, a_rerun_deadlock_is_matched_by_its_sites);
    tcase_add_test(tc, the_plan_names_every_edge);
    tcase_add_test(tc, verdicts_are_read_back_into_findings);
    tcase_add_test(tc, a_cond_cycle_is_the_wait_and_the_signallers_lock_call);
    suite_add_tcase(s, tc);
    return s;
}
