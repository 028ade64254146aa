/* Library unload: dlopen librtdd_rcu.so, start its worker and register
 * threads with it, dlclose it, and keep running (the worker and the
 * thread-exit destructor must be gone with the code). */
#include "check_main.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef RTDD_RCU_SO
#error "RTDD_RCU_SO must name build/lib/librtdd_rcu.so"
#endif

struct rcu_head_copy { /* layout of struct rcu_head, without the header */
    void *next;
    void (*func)(struct rcu_head_copy *);
};

static int ran;

static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void count_cb(struct rcu_head_copy *h)
{
    (void)h;
    __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
}

typedef void (*call_rcu_fn)(struct rcu_head_copy *, void (*)(struct rcu_head_copy *));
typedef void (*void_fn)(void);

static void_fn register_fn;
static int release_thread;

/* Registered with the library, still alive when the library is closed:
 * its exit must not call into the unmapped code. */
static void *registered_thread(void *arg)
{
    (void)arg;
    register_fn();
    while (!__atomic_load_n(&release_thread, __ATOMIC_ACQUIRE))
        usleep(1000);
    return NULL;
}

START_TEST(dlclose_with_worker_and_registered_threads)
{
    void *lib = dlopen(RTDD_RCU_SO, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "dlopen: %s", dlerror());
    call_rcu_fn call = (call_rcu_fn)dlsym(lib, "call_rcu");
    void_fn barrier = (void_fn)dlsym(lib, "rcu_barrier");
    void_fn sync = (void_fn)dlsym(lib, "synchronize_rcu");
    register_fn = (void_fn)dlsym(lib, "rcu_register_thread");
    ck_assert(call && barrier && sync && register_fn);

    static struct rcu_head_copy heads[100];
    for (int i = 0; i < 100; i++)
        call(&heads[i], count_cb); /* starts the worker thread */
    barrier();
    ck_assert_int_eq(ran, 100);
    pthread_t t;
    pthread_create(&t, NULL, registered_thread, NULL);
    usleep(20000);
    sync();

    ck_assert_int_eq(thread_count(), 3); /* us, the registered thread, the worker */
    ck_assert_int_eq(dlclose(lib), 0);
    ck_assert_int_eq(thread_count(), 2); /* the worker was stopped and joined */
    /* The worker is joined and the key deleted: the thread can exit safely. */
    __atomic_store_n(&release_thread, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    usleep(50000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rcu_unload");
    TCase *tc = tcase_create("dlclose_with_worker_and_registered_threads");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, dlclose_with_worker_and_registered_threads);
    suite_add_tcase(s, tc);
    Suite *suites[] = {s};
    return rtdd_check_run("rcu", suites, 1);
}
