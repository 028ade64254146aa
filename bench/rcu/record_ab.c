/* What record mode's inline recording costs by itself (docs/design.md,
 * "Known limitations"): one loop of lock + dereference + unlock, run in
 * alternating blocks with the read side plain and with record mode on
 * (a record attached by hand, no runtime behind it: call-outs go to the
 * library's own slow functions). Prints the best ns per section of each.
 * Usage: record_ab [BLOCKS]   (run it without rtdd, pinned to one CPU) */
#include <rtdd/rcu_debug.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct payload { long value; };
static struct payload *shared;
static const struct rtdd_rcu_debug_ops no_hooks; /* installed: all members NULL */
static const volatile uint32_t cpu0;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) static long sections(long n)
{
    long sink = 0;
    for (long i = 0; i < n; i++) {
        rcu_read_lock();
        sink += rcu_dereference(shared)->value;
        rcu_read_unlock();
    }
    return sink;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 60;
    const long per_block = 2000000;
    if (blocks < 2 || __atomic_load_n(&rtdd_rcu_debug_ops_active, __ATOMIC_RELAXED)) {
        fprintf(stderr, "usage: record_ab [BLOCKS >= 2], without rtdd (it attaches its own record)\n");
        return 2;
    }
    struct rtdd_rcu_record *r = calloc(1, sizeof *r);
    uint64_t *line_clock = calloc((size_t)1 << RTDD_RCU_REC_LINE_BITS, sizeof *line_clock);
    shared = malloc(sizeof *shared);
    if (!r || !line_clock || !shared)
        return 1;
    shared->value = 1;
    r->cpu_id = &cpu0;
    r->line_clock = line_clock;
    sections(1); /* registers the thread's reader slot */
    rtdd_rcu_self->record = r;
    double best[2] = {1e30, 1e30};
    long sink = 0;
    for (int b = 0; b < blocks; b++) {
        int on = b & 1;
        rtdd_rcu_set_debug_hooks(on ? &no_hooks : NULL);
        rtdd_rcu_set_read_record(on);
        double t0 = now_ns();
        sink += sections(per_block);
        double ns = (now_ns() - t0) / per_block;
        if (ns < best[on])
            best[on] = ns;
    }
    rtdd_rcu_set_debug_hooks(NULL);
    unsigned long recorded = r->sections;
    if (recorded < (unsigned long)(blocks / 2) * per_block) {
        fprintf(stderr, "record_ab: only %lu sections were recorded inline\n", recorded);
        return 1;
    }
    printf("plain %.2f ns, recorded %.2f ns per section: %.2fx (best of %d blocks of %ld; sink %ld)\n", best[0],
           best[1], best[1] / best[0], blocks / 2, per_block, sink);
    return 0;
}
