#include "order/feasible.h"
#include <string.h>

int rt_threadset_has(const struct rt_threadset *s, int tid)
{
    if (s->more)
        return 1;
    for (unsigned i = 0; i < s->n; i++)
        if (s->tid[i] == tid)
            return 1;
    return 0;
}

int rt_threadset_add(struct rt_threadset *s, int tid)
{
    if (rt_threadset_has(s, tid))
        return 0;
    if (s->n < RT_EDGE_THREADS)
        s->tid[s->n++] = tid;
    else
        s->more = 1;
    return 1;
}

/* Bipartite matching of edges to threads by augmenting paths (Kuhn): the
 * sets are small (4 threads) and cycles short, so this is a few dozen
 * steps. Threads are numbered by their first appearance. */
struct matching {
    const struct rt_threadset *const *sets;
    unsigned n;
    int threads[RT_FEASIBLE_MAX * RT_EDGE_THREADS];
    unsigned nthreads;
    int edge_of_thread[RT_FEASIBLE_MAX * RT_EDGE_THREADS]; /* -1: free */
    uint8_t seen[RT_FEASIBLE_MAX * RT_EDGE_THREADS];
};

static unsigned thread_index(struct matching *m, int tid)
{
    for (unsigned i = 0; i < m->nthreads; i++)
        if (m->threads[i] == tid)
            return i;
    m->threads[m->nthreads] = tid;
    m->edge_of_thread[m->nthreads] = -1;
    return m->nthreads++;
}

static int augment(struct matching *m, unsigned edge)
{
    const struct rt_threadset *s = m->sets[edge];
    for (unsigned k = 0; k < s->n; k++) {
        unsigned th = thread_index(m, s->tid[k]);
        if (m->seen[th])
            continue;
        m->seen[th] = 1;
        if (m->edge_of_thread[th] < 0 || augment(m, (unsigned)m->edge_of_thread[th])) {
            m->edge_of_thread[th] = (int)edge;
            return 1;
        }
    }
    return 0;
}

int rt_threads_distinct(const struct rt_threadset *const *sets, unsigned n)
{
    if (n > RT_FEASIBLE_MAX)
        return 1;
    struct matching m;
    m.sets = sets;
    m.n = n;
    m.nthreads = 0;
    for (unsigned e = 0; e < n; e++) {
        if (sets[e]->more)
            continue; /* matched last, from threads nobody else can name */
        memset(m.seen, 0, sizeof m.seen);
        if (!augment(&m, e))
            return 0;
    }
    return 1;
}

int rt_cycle_feasible(const struct rt_threadset *const *sets, unsigned n, int closer,
                      int (*ended_before)(int tid, int observer))
{
    if (!ended_before || n < 2 || n > RT_FEASIBLE_MAX)
        return rt_threads_distinct(sets, n);
    struct rt_threadset kept[RT_FEASIBLE_MAX];
    const struct rt_threadset *view[RT_FEASIBLE_MAX];
    /* The closing edge given to one of its earlier makers. */
    const struct rt_threadset *closing = sets[n - 1];
    kept[n - 1] = (struct rt_threadset){ { 0 }, 0, closing->more };
    for (unsigned k = 0; k < closing->n; k++)
        if (closing->tid[k] != closer)
            kept[n - 1].tid[kept[n - 1].n++] = closing->tid[k];
    if (kept[n - 1].n || kept[n - 1].more) {
        for (unsigned e = 0; e + 1 < n; e++)
            view[e] = sets[e];
        view[n - 1] = &kept[n - 1];
        if (rt_threads_distinct(view, n))
            return 1;
    }
    /* The closing edge given to closer: the others to threads that may
     * run beside it now (a set past its size may always have one). */
    for (unsigned e = 0; e + 1 < n; e++) {
        kept[e] = (struct rt_threadset){ { 0 }, 0, sets[e]->more };
        for (unsigned k = 0; k < sets[e]->n; k++)
            if (!ended_before(sets[e]->tid[k], closer))
                kept[e].tid[kept[e].n++] = sets[e]->tid[k];
        view[e] = &kept[e];
    }
    kept[n - 1] = (struct rt_threadset){ { closer }, 1, 0 };
    view[n - 1] = &kept[n - 1];
    return rt_threads_distinct(view, n);
}
