/* Callbacks: call_rcu() appends to one wait-free multi-producer queue (an
 * exchange on the tail, then a store that links the node; async-signal-safe
 * once the worker runs) and a worker thread takes the whole queue at once,
 * waits for one grace period that starts after the take, and invokes the
 * batch in order.  Callbacks therefore never run in the caller's context and
 * call_rcu() never waits for a grace period, so it is legal inside a read
 * section (the deadlock of the seed's implementation #1 cannot happen).
 *
 * Memory bound: past the soft limit the worker skips its batching delay;
 * past the hard limit call_rcu() callers outside a read section wait until
 * the worker brings the count back under the limit.  The wait gives up when
 * the worker makes no progress for THROTTLE_STALL_NS, so an updater that
 * holds a lock a reader needs (requirement 9) slows down but cannot
 * deadlock. */
#include "rcu_internal.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#define GATHER_NS 2000000L          /* batching delay below the soft limit */
#define IDLE_NS 1000000000L         /* idle worker re-checks its stop flag */
#define THROTTLE_STALL_NS 100000000L

/* Grouped by writer, one cache line per group: producers write the queue
 * tail and the pending count; the worker writes its counters. */
static RTDD_CACHELINE struct {
    struct rcu_head *first;
    struct rcu_head **tail;
} queue = {NULL, &queue.first};
static size_t pending;            /* queued or in the batch being processed */
static uint64_t max_pending;

static RTDD_CACHELINE uint64_t callbacks_invoked;
static uint64_t batches;
static uint32_t batch_done_seq;   /* futex: bumped after each batch */

static RTDD_CACHELINE uint32_t worker_sleeping; /* 0 awake, SLEEP_IDLE, SLEEP_GATHER */
static uint32_t worker_wake_seq;  /* futex: bumped to wake the worker */
static uint32_t urgent;           /* barrier/reclaim/throttle waiters: no delay */
static uint64_t throttled;
static int worker_state;          /* WORKER_* */
static int worker_stop;
static pthread_t worker_thread;
static pthread_mutex_t worker_start_lock = PTHREAD_MUTEX_INITIALIZER;

enum { SLEEP_IDLE = 1, SLEEP_GATHER = 2 };
enum { WORKER_NONE, WORKER_RUNNING, WORKER_SHUT_DOWN };

__thread int rtdd_rcu_on_worker;

RTDD_HIDDEN extern size_t rtdd_rcu_soft_limit_value;
RTDD_HIDDEN extern size_t rtdd_rcu_hard_limit_value;

static size_t soft_limit(void)
{
    return __atomic_load_n(&rtdd_rcu_soft_limit_value, __ATOMIC_RELAXED);
}

static size_t hard_limit(void)
{
    return __atomic_load_n(&rtdd_rcu_hard_limit_value, __ATOMIC_RELAXED);
}

static void queue_append(struct rcu_head *head)
{
    head->next = NULL;
    struct rcu_head **prev = __atomic_exchange_n(&queue.tail, &head->next, __ATOMIC_SEQ_CST);
    __atomic_store_n(prev, head, __ATOMIC_RELEASE);
}

static bool queue_empty(void)
{
    return __atomic_load_n(&queue.first, __ATOMIC_ACQUIRE) == NULL &&
           __atomic_load_n(&queue.tail, __ATOMIC_ACQUIRE) == &queue.first;
}

/* Wait out a producer between its exchange and its link store. */
static struct rcu_head *await_link(struct rcu_head **link)
{
    struct rcu_head *node;
    unsigned int spins = 0;
    while ((node = __atomic_load_n(link, __ATOMIC_ACQUIRE)) == NULL)
        if (++spins > 100)
            sched_yield();
    return node;
}

/* Take the whole queue; *last is the link field of the final node. */
static struct rcu_head *queue_take(struct rcu_head ***last)
{
    if (queue_empty())
        return NULL;
    struct rcu_head *first = await_link(&queue.first);
    __atomic_store_n(&queue.first, NULL, __ATOMIC_RELAXED);
    *last = __atomic_exchange_n(&queue.tail, &queue.first, __ATOMIC_SEQ_CST);
    return first;
}

static void note_pending(size_t n)
{
    uint64_t seen = __atomic_load_n(&max_pending, __ATOMIC_RELAXED);
    while (n > seen && !__atomic_compare_exchange_n(&max_pending, &seen, n, true,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void rtdd_rcu_kick_worker(void)
{
    __atomic_store_n(&worker_sleeping, 0, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&worker_wake_seq, 1, __ATOMIC_SEQ_CST);
    rtdd_futex_wake_all(&worker_wake_seq);
}

static bool worker_should_hurry(void)
{
    size_t soft = soft_limit();
    return __atomic_load_n(&urgent, __ATOMIC_RELAXED) ||
           __atomic_load_n(&worker_stop, __ATOMIC_RELAXED) ||
           (soft && __atomic_load_n(&pending, __ATOMIC_RELAXED) > soft);
}

/* Sleep in `state` until kicked, the timeout passes, or `done` holds. */
static void worker_sleep(uint32_t state, long timeout_ns, bool (*done)(void))
{
    uint32_t seq = __atomic_load_n(&worker_wake_seq, __ATOMIC_SEQ_CST);
    __atomic_store_n(&worker_sleeping, state, __ATOMIC_SEQ_CST);
    if (!done())
        rtdd_futex_wait(&worker_wake_seq, seq, timeout_ns);
    __atomic_store_n(&worker_sleeping, 0, __ATOMIC_SEQ_CST);
}

static bool has_work(void)
{
    return !queue_empty() || __atomic_load_n(&worker_stop, __ATOMIC_RELAXED);
}

static void barrier_marker_cb(struct rcu_head *head);

/* Pending drops in steps of 64 (throttled callers see progress early) and
 * before a barrier marker runs, so rcu_barrier() returns with the count of
 * everything before it already settled. */
static void invoke_batch(struct rcu_head *node, struct rcu_head **last)
{
    size_t unsettled = 0;
    uint64_t n = 0;
    for (;;) {
        bool final = &node->next == last;
        struct rcu_head *next = final ? NULL : await_link(&node->next);
        void (*func)(struct rcu_head *) = node->func;
        unsettled++;
        if (func == barrier_marker_cb || unsettled == 64) {
            __atomic_fetch_sub(&pending, unsettled, __ATOMIC_SEQ_CST);
            unsettled = 0;
        }
        const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
        if (ops && ops->callback_begin)
            ops->callback_begin(node, func);
        func(node); /* may free node: next was read first */
        if (ops && ops->callback_end)
            ops->callback_end(node, func);
        n++;
        if (final)
            break;
        node = next;
    }
    __atomic_fetch_add(&callbacks_invoked, n, __ATOMIC_RELAXED);
    if (unsettled)
        __atomic_fetch_sub(&pending, unsettled, __ATOMIC_SEQ_CST);
}

static void *worker_main(void *arg)
{
    (void)arg;
    rtdd_rcu_on_worker = 1;
    for (;;) {
        if (!has_work())
            worker_sleep(SLEEP_IDLE, IDLE_NS, has_work);
        if (queue_empty()) {
            if (__atomic_load_n(&worker_stop, __ATOMIC_RELAXED))
                break;
            continue;
        }
        if (!worker_should_hurry())
            worker_sleep(SLEEP_GATHER, GATHER_NS, worker_should_hurry);
        struct rcu_head **last;
        struct rcu_head *batch = queue_take(&last);
        if (!batch)
            continue;
        rtdd_rcu_wait_grace_period(); /* starts after every callback in batch was queued */
        invoke_batch(batch, last);
        __atomic_fetch_add(&batches, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&batch_done_seq, 1, __ATOMIC_SEQ_CST);
        rtdd_futex_wake_all(&batch_done_seq);
    }
    return NULL;
}

static void ensure_worker(void)
{
    if (__atomic_load_n(&worker_state, __ATOMIC_ACQUIRE) == WORKER_RUNNING)
        return;
    pthread_mutex_lock(&worker_start_lock);
    if (worker_state == WORKER_NONE) {
        rtdd_rcu_init_once();
        __atomic_store_n(&worker_stop, 0, __ATOMIC_RELAXED);
        /* The worker inherits the caller's signal mask minus nothing: RCU
         * never blocks signals around callbacks. */
        if (pthread_create(&worker_thread, NULL, worker_main, NULL) == 0) {
#ifdef __GLIBC__
            pthread_setname_np(worker_thread, "rcu-callbacks");
#endif
            __atomic_store_n(&worker_state, WORKER_RUNNING, __ATOMIC_RELEASE);
        } else {
            static int warned;
            rtdd_rcu_warn_once(&warned, "rtdd_rcu: cannot start the callback worker; "
                                        "callbacks wait until it can start\n");
        }
    }
    pthread_mutex_unlock(&worker_start_lock);
}

/* A caller may wait only where waiting cannot deadlock RCU itself. */
static bool caller_may_wait(void)
{
    return !rtdd_rcu_in_reader() && !rtdd_rcu_on_worker;
}

static void throttle(size_t hard)
{
    __atomic_fetch_add(&throttled, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&urgent, 1, __ATOMIC_SEQ_CST);
    rtdd_rcu_kick_worker();
    for (;;) {
        uint32_t seq = __atomic_load_n(&batch_done_seq, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&pending, __ATOMIC_SEQ_CST) < hard)
            break;
        if (!rtdd_futex_wait(&batch_done_seq, seq, THROTTLE_STALL_NS) &&
            __atomic_load_n(&batch_done_seq, __ATOMIC_SEQ_CST) == seq)
            break; /* no batch finished for a while: readers are stalled */
    }
    __atomic_fetch_sub(&urgent, 1, __ATOMIC_SEQ_CST);
}

static void enqueue(struct rcu_head *head)
{
    size_t n = __atomic_add_fetch(&pending, 1, __ATOMIC_SEQ_CST);
    queue_append(head);
    uint32_t sleeping = __atomic_load_n(&worker_sleeping, __ATOMIC_SEQ_CST);
    if (sleeping == SLEEP_IDLE) {
        rtdd_rcu_kick_worker();
    } else if (sleeping == SLEEP_GATHER) {
        size_t soft = soft_limit();
        if (soft && n > soft)
            rtdd_rcu_kick_worker();
    }
    if ((n & 63) == 0 || n > max_pending)
        note_pending(n);
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
    const void *caller = __builtin_return_address(0);
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    /* A head already queued must not be linked in twice (as the kernel's
     * debug-objects): the hook reports it and the call is dropped. */
    if (ops && ops->call_enqueue && ops->call_enqueue(head, func, caller))
        return;
    head->func = func;
    ensure_worker();
    size_t hard = hard_limit();
    if (hard && __atomic_load_n(&pending, __ATOMIC_RELAXED) >= hard && caller_may_wait())
        throttle(hard);
    enqueue(head);
}

struct barrier_marker {
    struct rcu_head head;
    uint32_t done;
};

static void barrier_marker_cb(struct rcu_head *head)
{
    struct barrier_marker *m = (struct barrier_marker *)((char *)head -
                                                         __builtin_offsetof(struct barrier_marker,
                                                                            head));
    __atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
    rtdd_futex_wake_all(&m->done); /* harmless if the waiter already left */
}

/* FIFO queue + in-order batches: once our marker runs, all earlier
 * callbacks have run. */
static void wait_for_queued_callbacks(void)
{
    struct barrier_marker marker = {.done = 0};
    marker.head.func = barrier_marker_cb;
    ensure_worker();
    if (__atomic_load_n(&worker_state, __ATOMIC_ACQUIRE) != WORKER_RUNNING)
        return; /* after shutdown nothing runs callbacks any more */
    __atomic_fetch_add(&urgent, 1, __ATOMIC_SEQ_CST);
    enqueue(&marker.head);
    rtdd_rcu_kick_worker();
    while (!__atomic_load_n(&marker.done, __ATOMIC_ACQUIRE))
        rtdd_futex_wait(&marker.done, 0, 100000000L);
    __atomic_fetch_sub(&urgent, 1, __ATOMIC_SEQ_CST);
}

void rcu_barrier(void)
{
    const void *caller = __builtin_return_address(0);
    unsigned int depth = rcu_read_depth();
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->barrier_begin)
        ops->barrier_begin(caller, depth);
    if (caller_may_wait()) {
        wait_for_queued_callbacks();
    } else {
        static int warned;
        rtdd_rcu_warn_once(&warned, "rtdd_rcu: rcu_barrier() inside an RCU read-side critical "
                                    "section or a callback would deadlock; ignored\n");
    }
    ops = rtdd_rcu_hooks();
    if (ops && ops->barrier_end)
        ops->barrier_end(caller);
}

int rcu_reclaim_now(void)
{
    if (!caller_may_wait()) {
        __atomic_fetch_add(&urgent, 1, __ATOMIC_SEQ_CST);
        rtdd_rcu_kick_worker();
        __atomic_fetch_sub(&urgent, 1, __ATOMIC_SEQ_CST);
        errno = EDEADLK;
        return -1;
    }
    wait_for_queued_callbacks();
    return 0;
}

size_t rcu_pending_callbacks(void)
{
    return __atomic_load_n(&pending, __ATOMIC_RELAXED);
}

void rtdd_rcu_callbacks_stats(struct rtdd_rcu_stats *out)
{
    out->callbacks_invoked = __atomic_load_n(&callbacks_invoked, __ATOMIC_RELAXED);
    out->callback_batches = __atomic_load_n(&batches, __ATOMIC_RELAXED);
    out->throttled_calls = __atomic_load_n(&throttled, __ATOMIC_RELAXED);
    out->max_pending = __atomic_load_n(&max_pending, __ATOMIC_RELAXED);
}

/* The worker did not survive fork.  A producer that was between its
 * exchange and its link store in another thread never finishes in the
 * child: cut the queue at that hole, and count what is really queued (the
 * parent worker's in-flight batch is not in the queue and never runs here). */
void rtdd_rcu_callbacks_after_fork_child(void)
{
    pthread_mutex_init(&worker_start_lock, NULL);
    worker_state = WORKER_NONE;
    worker_stop = 0;
    worker_sleeping = 0;
    worker_wake_seq = 0;
    batch_done_seq = 0;
    urgent = 0;
    rtdd_rcu_on_worker = 0;
    size_t n = 0;
    struct rcu_head **link = &queue.first;
    while (*link) {
        n++;
        if (&(*link)->next == queue.tail)
            break;
        link = &(*link)->next;
    }
    if (!*link)
        queue.tail = link;
    pending = n;
}

/* Unload/exit: let the worker finish what is queued, bounded so that a
 * reader stuck forever cannot hang process exit.  No worker starts after
 * this: threads still running during exit only queue (and leak). */
void rtdd_rcu_callbacks_shutdown(void)
{
    pthread_mutex_lock(&worker_start_lock);
    int state = worker_state;
    worker_state = WORKER_SHUT_DOWN;
    pthread_mutex_unlock(&worker_start_lock);
    if (state != WORKER_RUNNING)
        return;
    __atomic_store_n(&worker_stop, 1, __ATOMIC_SEQ_CST);
    rtdd_rcu_kick_worker();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 2;
    pthread_timedjoin_np(worker_thread, NULL, &deadline);
}
