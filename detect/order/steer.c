/* Steering a rerun into a lock-order cycle (confirm_plan=FILE, written by
 * `rtdd run --confirm`; docs/confirm.md). Runs only in the nested
 * acquisition's slow path (rt_on_lock_pre_nested), before the wait is
 * shown to the watchdog, and only when a plan is installed: with no plan
 * the cost is one predictable branch there, none on the fast paths. A
 * cond-lock-order plan also steers condition and semaphore waits and a
 * free edge's lock calls (the interposed wrappers' slow paths; a plan with
 * a free edge sends every acquisition there: rt_thread_slow_acquire).
 *
 * A paused thread sleeps on a futex of the runtime, never on a program
 * lock, for at most pause_ms; after max_pauses pauses that timed out,
 * steering stops for the rest of the run. Nothing the program computes
 * changes, only when its threads run. */
#include "order/order.h"
#include "order/steer.h"
#include "core/core.h"
#include "locks/locks.h"
#include "report/report.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int rt_steer_on;

static struct rt_steer_plan plan;
static uint64_t all_edges;

static struct {
    uint64_t arrived;  /* one bit per edge whose thread is there now */
    uint32_t gen;      /* futex word: bumped when the cycle's threads met */
    unsigned met, timeouts;
} meet;

/* pc -> the edges it is an acquire / held site of, classified once. */
#define STEER_CACHE 1024
static struct steer_pc {
    uintptr_t pc; /* 0: free */
    uint64_t acquire, held;
} cache[STEER_CACHE];
static rt_spin_t cache_lock;

static int parse_site(const char *s, struct rt_steer_site *site)
{
    /* MODULE+0xOFFSET: the report's own spelling of a frame's module offset. */
    const char *plus = strrchr(s, '+');
    if (!plus || plus == s || (size_t)(plus - s) >= sizeof site->module || strncmp(plus + 1, "0x", 2))
        return -1;
    memcpy(site->module, s, (size_t)(plus - s));
    site->module[plus - s] = 0;
    uint64_t v = 0;
    const char *d = plus + 3;
    if (!*d)
        return -1;
    for (; *d; d++) {
        int x = *d >= '0' && *d <= '9' ? *d - '0' : *d >= 'a' && *d <= 'f' ? *d - 'a' + 10 : -1;
        if (x < 0 || v >> 60)
            return -1;
        v = v * 16 + (uint64_t)x;
    }
    site->offset = v;
    return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
    unsigned long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000UL)
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *out = (unsigned)v;
    return 0;
}

/* Splits line (NUL-terminated, modified) into at most max words. */
static unsigned split_words(char *line, char **w, unsigned max)
{
    unsigned n = 0;
    for (char *s = line; *s && n < max;) {
        while (*s == ' ' || *s == '\t')
            *s++ = 0;
        if (!*s)
            break;
        w[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
    return n;
}

int rt_steer_plan_parse(struct rt_steer_plan *p, const char *text, size_t n, struct rt_buf *err)
{
    memset(p, 0, sizeof *p);
    p->pause_ms = 1500;
    p->max_pauses = 4;
    unsigned lineno = 0;
    int seen_magic = 0;
    for (size_t at = 0; at < n;) {
        size_t len = 0;
        while (at + len < n && text[at + len] != '\n')
            len++;
        char line[512];
        lineno++;
        if (len >= sizeof line) {
            rt_buf_printf(err, "line %u is too long", lineno);
            return -1;
        }
        memcpy(line, text + at, len);
        line[len] = 0;
        at += len + 1;
        char *w[6];
        unsigned nw = split_words(line, w, 6);
        if (nw == 0 || w[0][0] == '#')
            continue;
        int bad = 0;
        if (!seen_magic) {
            bad = nw != 2 || strcmp(w[0], "rtdd-confirm-plan") || strcmp(w[1], "1");
            seen_magic = 1;
        } else if (!strcmp(w[0], "pause_ms") && nw == 2) {
            bad = parse_uint(w[1], &p->pause_ms) < 0 || p->pause_ms == 0 || p->pause_ms > 60000;
        } else if (!strcmp(w[0], "max_pauses") && nw == 2) {
            bad = parse_uint(w[1], &p->max_pauses) < 0;
        } else if (!strcmp(w[0], "no_pause") && nw == 2) {
            unsigned e;
            bad = parse_uint(w[1], &e) < 0 || e >= RT_STEER_MAX_EDGES;
            if (!bad)
                p->no_pause |= 1ULL << e;
        } else if ((!strcmp(w[0], "edge") || !strcmp(w[0], "wait")) && nw == 3) {
            if (p->nedges >= RT_STEER_MAX_EDGES) {
                rt_buf_printf(err, "more than %d edges", RT_STEER_MAX_EDGES);
                return -1;
            }
            int any = !strcmp(w[2], "-");
            bad = parse_site(w[1], &p->acquire[p->nedges]) < 0 || (!any && parse_site(w[2], &p->held[p->nedges]) < 0);
            if (!bad && any)
                p->free |= 1ULL << p->nedges;
            if (!bad && w[0][0] == 'w')
                p->wait |= 1ULL << p->nedges;
            p->nedges += !bad;
        } else {
            bad = 1;
        }
        if (bad) {
            rt_buf_printf(err, lineno > 1 ? "line %u is not understood" : "line %u: not an rtdd confirm plan", lineno);
            return -1;
        }
    }
    if (p->nedges < 2) {
        rt_buf_printf(err, "a plan needs at least 2 edges, it has %u", p->nedges);
        return -1;
    }
    return 0;
}

uint64_t rt_steer_plan_match(const struct rt_steer_plan *p, const char *module, uint64_t offset, int held)
{
    const struct rt_steer_site *sites = held ? p->held : p->acquire;
    uint64_t m = 0;
    for (unsigned i = 0; i < p->nedges; i++)
        if (!(held && (p->free >> i & 1)) && sites[i].offset == offset && !strcmp(sites[i].module, module))
            m |= 1ULL << i;
    return m;
}

void rt_steer_install(const struct rt_steer_plan *p)
{
    plan = *p;
    all_edges = p->nedges >= 64 ? ~0ULL : (1ULL << p->nedges) - 1;
    memset(&meet, 0, sizeof meet);
    /* A free edge's thread may hold nothing at its site: its acquisitions
     * must leave the lock fast paths, which check nothing before the call. */
    rt_thread_slow_acquire = p->free != 0;
    rt_spin_lock(&cache_lock);
    memset(cache, 0, sizeof cache);
    rt_spin_unlock(&cache_lock);
    __atomic_store_n(&rt_steer_on, 1, __ATOMIC_RELEASE);
}

int rt_steer_setup(const char *path, struct rt_buf *err)
{
    if (!path || !path[0])
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rt_buf_printf(err, "confirm_plan: cannot open '%s'", path);
        return -1;
    }
    static char text[16384];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof text && (r = read(fd, text + len, sizeof text - len)) > 0)
        len += (size_t)r;
    close(fd);
    struct rt_steer_plan p;
    rt_buf_printf(err, "confirm_plan '%s': ", path);
    if (rt_steer_plan_parse(&p, text, len, err) < 0)
        return -1;
    rt_steer_install(&p);
    return 0;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int rt_steer_meet(unsigned edge)
{
    uint64_t bit = 1ULL << edge;
    uint32_t gen = __atomic_load_n(&meet.gen, __ATOMIC_ACQUIRE);
    uint64_t old = __atomic_fetch_or(&meet.arrived, bit, __ATOMIC_ACQ_REL);
    if (old & bit)
        return -1;
    if ((old | bit) == all_edges) {
        /* The last one: all the cycle's threads hold their locks and stand
         * at their acquisitions. Release them into the cycle. */
        __atomic_store_n(&meet.arrived, 0, __ATOMIC_RELEASE);
        __atomic_fetch_add(&meet.gen, 1, __ATOMIC_ACQ_REL);
        __atomic_fetch_add(&meet.met, 1, __ATOMIC_RELAXED);
        rt_raw_syscall6(SYS_futex, (long)&meet.gen, FUTEX_WAKE_PRIVATE, 0x7fffffff, 0, 0, 0);
        return 1;
    }
    if (plan.no_pause & bit) {
        __atomic_fetch_and(&meet.arrived, ~bit, __ATOMIC_ACQ_REL);
        return 0;
    }
    uint64_t deadline = now_ms() + plan.pause_ms;
    for (;;) {
        if (__atomic_load_n(&meet.gen, __ATOMIC_ACQUIRE) != gen)
            return 1;
        uint64_t now = now_ms();
        if (now >= deadline)
            break;
        uint64_t left = deadline - now;
        struct timespec ts = { (time_t)(left / 1000), (long)(left % 1000) * 1000000L };
        rt_raw_syscall6(SYS_futex, (long)&meet.gen, FUTEX_WAIT_PRIVATE, (long)gen, (long)&ts, 0, 0);
    }
    __atomic_fetch_and(&meet.arrived, ~bit, __ATOMIC_ACQ_REL);
    /* Released between the last look and the withdrawal: it met. */
    if (__atomic_load_n(&meet.gen, __ATOMIC_ACQUIRE) != gen)
        return 1;
    if (__atomic_add_fetch(&meet.timeouts, 1, __ATOMIC_RELAXED) >= plan.max_pauses)
        __atomic_store_n(&rt_steer_on, 0, __ATOMIC_RELEASE); /* this run will not meet: let it run */
    return 0;
}

unsigned rt_steer_met(void)
{
    return __atomic_load_n(&meet.met, __ATOMIC_RELAXED);
}

uint64_t rt_steer_arrived(void)
{
    return __atomic_load_n(&meet.arrived, __ATOMIC_ACQUIRE);
}

unsigned rt_steer_timeouts(void)
{
    return __atomic_load_n(&meet.timeouts, __ATOMIC_RELAXED);
}

/* The edges pc is a site of (held: a held lock's take site). Classified
 * through the module list once per pc (rt_module_find takes the loader
 * lock, so not under cache_lock). */
static uint64_t classify(uintptr_t pc, int held)
{
    unsigned h = (unsigned)rt_hash64(pc) & (STEER_CACHE - 1);
    rt_spin_lock(&cache_lock);
    for (unsigned i = 0; i < STEER_CACHE; i++) {
        struct steer_pc *c = &cache[(h + i) & (STEER_CACHE - 1)];
        if (c->pc == pc) {
            uint64_t m = held ? c->held : c->acquire;
            rt_spin_unlock(&cache_lock);
            return m;
        }
        if (!c->pc)
            break;
    }
    rt_spin_unlock(&cache_lock);
    struct rt_module mod;
    uint64_t acq = 0, hel = 0;
    if (rt_module_find(pc, &mod) == 0) {
        acq = rt_steer_plan_match(&plan, mod.name, (uint64_t)(pc - mod.base), 0);
        hel = rt_steer_plan_match(&plan, mod.name, (uint64_t)(pc - mod.base), 1);
    }
    rt_spin_lock(&cache_lock);
    for (unsigned i = 0; i < STEER_CACHE; i++) {
        struct steer_pc *c = &cache[(h + i) & (STEER_CACHE - 1)];
        if (c->pc == pc)
            break;
        if (!c->pc) {
            c->pc = pc;
            c->acquire = acq;
            c->held = hel;
            break;
        }
    }
    rt_spin_unlock(&cache_lock);
    return held ? hel : acq;
}

/* kinds: the edges this call may be (lock calls or waits): a condition
 * wait's mutex is taken again at the wait's own site, not a wait then. */
static void steer(struct rt_thread *t, uintptr_t pc, uint64_t kinds)
{
    uint64_t edges = classify(pc, 0) & kinds;
    if (!edges)
        return;
    uint64_t holding = plan.free;
    for (unsigned i = 0; i < t->nheld && (edges & ~holding); i++) {
        const uintptr_t *pcs;
        const uint32_t *sizes;
        if (t->held[i].stack && rt_stack_get(t->held[i].stack, &pcs, &sizes) > 0)
            holding |= classify(pcs[0], 1);
    }
    edges &= holding;
    /* Edges with the same sites (a ring of array locks taken by one line
     * of code) are filled one thread each. */
    while (edges) {
        unsigned e = (unsigned)__builtin_ctzll(edges);
        if (rt_steer_meet(e) >= 0)
            return;
        edges &= edges - 1;
    }
}

void rt_steer_before_wait(struct rt_thread *t, uintptr_t pc)
{
    steer(t, pc, ~plan.wait);
}

void rt_steer_before_event_wait(struct rt_thread *t, uintptr_t pc)
{
    steer(t, pc, plan.wait);
}

void rt_steer_after_fork(void)
{
    /* The child's threads are its own: no one of the parent's waits at a site. */
    memset(&meet.arrived, 0, sizeof meet.arrived);
    rt_spin_reinit(&cache_lock);
}
