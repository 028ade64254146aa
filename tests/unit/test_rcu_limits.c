/* Bounded callback memory: soft/hard limits by API and environment,
 * throttling at the hard limit, no blocking inside readers, and forced
 * reaping with rcu_reclaim_now(). */
#include "check_main.h"

#include <rtdd/rcu.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *self_exe;
static int invoked;

static void free_cb(struct rcu_head *h)
{
    free(h);
    __atomic_fetch_add(&invoked, 1, __ATOMIC_RELAXED);
}

START_TEST(limits_have_defaults_and_setters)
{
    ck_assert_uint_eq(rcu_callback_hard_limit(), 100000);
    ck_assert_uint_eq(rcu_callback_soft_limit(), 100000 / 8);
    rcu_set_callback_hard_limit(5000);
    rcu_set_callback_soft_limit(700);
    ck_assert_uint_eq(rcu_callback_hard_limit(), 5000);
    ck_assert_uint_eq(rcu_callback_soft_limit(), 700);
    rcu_set_callback_hard_limit(0); /* unlimited */
    ck_assert_uint_eq(rcu_callback_hard_limit(), 0);
}
END_TEST

/* A thread's first read section needs a reader slot; with the address
 * space used up (compiler-rt's mmap_lots) no chunk can be mapped: the
 * reserve serves it, where the registry used to spin forever. */
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory needs address space of its own */
static pthread_barrier_t no_memory;

static void *first_reader(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&no_memory);
    rcu_read_lock();
    rcu_read_unlock();
    return NULL;
}

START_TEST(first_read_section_with_no_address_space_left)
{
    enum { READERS = 3 };
    pthread_t t[READERS];
    pthread_barrier_init(&no_memory, NULL, READERS + 1);
    for (int i = 0; i < READERS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, first_reader, NULL), 0);
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert_int_eq(fscanf(f, "%ld", &pages), 1);
    fclose(f);
    struct rlimit lim = { (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE), RLIM_INFINITY };
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
    ck_assert_ptr_eq(mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), MAP_FAILED);
    pthread_barrier_wait(&no_memory); /* the readers' first sections, now */
    for (int i = 0; i < READERS; i++)
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}
END_TEST
#endif

enum { FLOODERS = 3, PER_FLOODER = 40000, HARD = 1000 };

static void *flooder(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER_FLOODER; i++)
        call_rcu(malloc(sizeof(struct rcu_head)), free_cb);
    return NULL;
}

START_TEST(hard_limit_bounds_outstanding_callbacks)
{
    rcu_set_callback_hard_limit(HARD);
    rcu_set_callback_soft_limit(HARD / 10);
    pthread_t t[FLOODERS];
    for (int i = 0; i < FLOODERS; i++)
        pthread_create(&t[i], NULL, flooder, NULL);
    for (int i = 0; i < FLOODERS; i++)
        pthread_join(t[i], NULL);
    rcu_barrier();
    struct rtdd_rcu_stats s;
    rtdd_rcu_get_stats(&s);
    ck_assert_int_eq(invoked, FLOODERS * PER_FLOODER);
    /* Each flooder can pass the limit check together with the others once. */
    ck_assert_uint_le(s.max_pending, HARD + FLOODERS);
    ck_assert_uint_eq(rcu_pending_callbacks(), 0);
}
END_TEST

START_TEST(call_rcu_inside_reader_never_blocks_at_hard_limit)
{
    rcu_set_callback_hard_limit(10);
    rcu_read_lock(); /* waiting here for the worker would deadlock */
    for (int i = 0; i < 500; i++)
        call_rcu(malloc(sizeof(struct rcu_head)), free_cb);
    ck_assert_uint_gt(rcu_pending_callbacks(), 10);
    rcu_read_unlock();
    rcu_barrier();
    ck_assert_int_eq(invoked, 500);
}
END_TEST

START_TEST(reclaim_now_reaps_everything_queued)
{
    rcu_set_callback_soft_limit(0); /* nothing would hurry the worker */
    for (int i = 0; i < 500; i++)
        call_rcu(malloc(sizeof(struct rcu_head)), free_cb);
    ck_assert_int_eq(rcu_reclaim_now(), 0);
    ck_assert_int_eq(__atomic_load_n(&invoked, __ATOMIC_RELAXED), 500);
    ck_assert_uint_eq(rcu_pending_callbacks(), 0);
}
END_TEST

START_TEST(reclaim_now_inside_reader_refuses_to_wait)
{
    call_rcu(malloc(sizeof(struct rcu_head)), free_cb);
    rcu_read_lock();
    errno = 0;
    ck_assert_int_eq(rcu_reclaim_now(), -1);
    ck_assert_int_eq(errno, EDEADLK);
    rcu_read_unlock();
    ck_assert_int_eq(rcu_reclaim_now(), 0);
    ck_assert_int_eq(invoked, 1);
}
END_TEST

/* Runs this binary again with an environment; it prints its limits. */
static void limits_with_env(const char *hard, const char *soft, char *out, size_t len,
                            char *err, size_t errlen)
{
    int pout[2], perr[2];
    ck_assert_int_eq(pipe(pout), 0);
    ck_assert_int_eq(pipe(perr), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        if (hard)
            setenv("RTDD_RCU_MAX_CALLBACKS", hard, 1);
        if (soft)
            setenv("RTDD_RCU_SOFT_CALLBACKS", soft, 1);
        execl(self_exe, self_exe, "--print-limits", (char *)NULL);
        _exit(127);
    }
    close(pout[1]);
    close(perr[1]);
    ssize_t n = read(pout[0], out, len - 1);
    out[n > 0 ? n : 0] = 0;
    n = read(perr[0], err, errlen - 1);
    err[n > 0 ? n : 0] = 0;
    close(pout[0]);
    close(perr[0]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

START_TEST(environment_sets_limits)
{
    char out[128], err[512];
    limits_with_env("5000", NULL, out, sizeof(out), err, sizeof(err));
    ck_assert_str_eq(out, "hard=5000 soft=625\n");
    limits_with_env("5000", "100", out, sizeof(out), err, sizeof(err));
    ck_assert_str_eq(out, "hard=5000 soft=100\n");
    limits_with_env("lots", NULL, out, sizeof(out), err, sizeof(err));
    ck_assert_str_eq(out, "hard=100000 soft=12500\n");
    ck_assert_ptr_nonnull(strstr(err, "RTDD_RCU_MAX_CALLBACKS=lots"));
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--print-limits") == 0) {
        printf("hard=%zu soft=%zu\n", rcu_callback_hard_limit(), rcu_callback_soft_limit());
        return 0;
    }
    self_exe = "/proc/self/exe";
    (void)argv;
    Suite *s = suite_create("rcu_limits");
    struct {
        const char *name;
        const TTest *test;
    } tests[] = {
        {"limits_have_defaults_and_setters", limits_have_defaults_and_setters},
        {"hard_limit_bounds_outstanding_callbacks", hard_limit_bounds_outstanding_callbacks},
        {"call_rcu_inside_reader_never_blocks_at_hard_limit",
         call_rcu_inside_reader_never_blocks_at_hard_limit},
        {"reclaim_now_reaps_everything_queued", reclaim_now_reaps_everything_queued},
        {"reclaim_now_inside_reader_refuses_to_wait", reclaim_now_inside_reader_refuses_to_wait},
        {"environment_sets_limits", environment_sets_limits},
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory needs address space of its own */
        {"first_read_section_with_no_address_space_left", first_read_section_with_no_address_space_left},
#endif
    };
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        TCase *tc = tcase_create(tests[i].name);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, tests[i].test);
        suite_add_tcase(s, tc);
    }
    Suite *suites[] = {s};
    return rtdd_check_run("rcu", suites, 1);
}
