/* The incremental topological order (detect/order/graphorder.c) against a
 * brute-force search: random graphs with insertions and removals, every
 * graph of four nodes, and long chains built in both directions. */
#include "detect/suites.h"
#include "order/graphorder.h"
#include <string.h>

#define MAXN 16
static struct go_graph g;
static struct go_node nodes[MAXN];
static unsigned char adj[MAXN][MAXN];
static unsigned n;

static void fresh(unsigned count)
{
    memset(&g, 0, sizeof g);
    memset(adj, 0, sizeof adj);
    n = count;
    for (unsigned i = 0; i < n; i++)
        go_node_init(&g, &nodes[i]);
}

/* Is there a path a -> ... -> b in adj (a == b counts)? */
static int reaches(unsigned a, unsigned b)
{
    unsigned char seen[MAXN] = { 0 };
    unsigned stack[MAXN], depth = 0;
    stack[depth++] = a;
    seen[a] = 1;
    while (depth) {
        unsigned v = stack[--depth];
        if (v == b)
            return 1;
        for (unsigned w = 0; w < n; w++)
            if (adj[v][w] && !seen[w]) {
                seen[w] = 1;
                stack[depth++] = w;
            }
    }
    return 0;
}

static void check_order(void)
{
    for (unsigned u = 0; u < n; u++)
        for (unsigned v = 0; v < n; v++)
            if (adj[u][v])
                ck_assert_uint_lt(nodes[u].ord, nodes[v].ord);
}

/* Adds x -> y to both and checks they agree; returns 1 if it closed a cycle. */
static int add(unsigned x, unsigned y)
{
    int expect = reaches(y, x);
    int got = go_add_edge(&g, &nodes[x], &nodes[y]);
    ck_assert_int_eq(got, expect);
    if (!got)
        adj[x][y] = 1;
    check_order();
    return got;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned below)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % below);
}

START_TEST(random_graphs_against_brute_force)
{
    for (int trial = 0; trial < 4000; trial++) {
        fresh(2 + rnd(MAXN - 1));
        for (int op = 0; op < 80; op++) {
            unsigned x = rnd(n), y = rnd(n);
            if (adj[x][y] || (rnd(4) == 0 && x != y)) {
                if (!adj[x][y])
                    continue;
                go_remove_edge(&g, &nodes[x], &nodes[y]);
                adj[x][y] = 0;
                check_order();
            } else {
                add(x, y);
            }
            unsigned a = rnd(n), b = rnd(n);
            ck_assert_int_eq(go_path_exists(&g, &nodes[a], &nodes[b]), reaches(a, b));
        }
    }
}
END_TEST

/* Nodes that join a growing graph at either end of the order, as the
 * lock-order graph places them (first for an edge's source, last for its
 * target), against the brute force. */
START_TEST(nodes_placed_at_either_end)
{
    for (int trial = 0; trial < 4000; trial++) {
        memset(&g, 0, sizeof g);
        memset(adj, 0, sizeof adj);
        n = 2 + rnd(MAXN - 1);
        unsigned char made[MAXN] = { 0 };
        for (int op = 0; op < 80; op++) {
            unsigned x = rnd(n), y = rnd(n);
            if (!made[x]) {
                (rnd(2) ? go_node_init_first : go_node_init)(&g, &nodes[x]);
                made[x] = 1;
            }
            if (!made[y]) {
                (rnd(2) ? go_node_init_first : go_node_init)(&g, &nodes[y]);
                made[y] = 1;
            }
            if (adj[x][y]) {
                go_remove_edge(&g, &nodes[x], &nodes[y]);
                adj[x][y] = 0;
            } else {
                int expect = reaches(y, x);
                ck_assert_int_eq(go_add_edge(&g, &nodes[x], &nodes[y]), expect);
                if (!expect)
                    adj[x][y] = 1;
            }
            for (unsigned u = 0; u < n; u++)
                for (unsigned v = 0; v < n; v++)
                    if (adj[u][v])
                        ck_assert_uint_lt(nodes[u].ord, nodes[v].ord);
        }
    }
    /* A fresh node first agrees with an edge out of it: no search moves anything. */
    memset(&g, 0, sizeof g);
    go_node_init(&g, &nodes[0]);
    go_node_init(&g, &nodes[1]);
    go_node_init_first(&g, &nodes[2]);
    uint64_t before = nodes[0].ord;
    ck_assert_int_eq(go_add_edge(&g, &nodes[2], &nodes[0]), 0);
    ck_assert_uint_eq(nodes[0].ord, before);
    ck_assert_uint_lt(nodes[2].ord, nodes[0].ord);
}
END_TEST

/* Every set of edges over four nodes, inserted in increasing and in
 * decreasing order of (from, to). */
START_TEST(every_graph_of_four_nodes)
{
    for (unsigned set = 0; set < (1u << 16); set++)
        for (int dir = 0; dir < 2; dir++) {
            fresh(4);
            for (unsigned k = 0; k < 16; k++) {
                unsigned bit = dir ? 15 - k : k;
                if (set & (1u << bit))
                    add(bit / 4, bit % 4);
            }
        }
}
END_TEST

/* A chain built forward costs no search; built backward, every edge
 * moves nodes; either way the closing edge is a cycle. */
START_TEST(long_chains)
{
    enum { LEN = 20000 };
    static struct go_node chain[LEN];
    for (int dir = 0; dir < 2; dir++) {
        memset(&g, 0, sizeof g);
        for (unsigned i = 0; i < LEN; i++)
            go_node_init(&g, &chain[i]);
        for (unsigned k = 0; k + 1 < LEN; k++) {
            unsigned i = dir ? LEN - 2 - k : k;
            ck_assert_int_eq(go_add_edge(&g, &chain[i], &chain[i + 1]), 0);
        }
        for (unsigned i = 0; i + 1 < LEN; i++)
            ck_assert_uint_lt(chain[i].ord, chain[i + 1].ord);
        ck_assert_int_eq(go_add_edge(&g, &chain[LEN - 1], &chain[0]), 1);
        ck_assert_int_eq(go_add_edge(&g, &chain[7], &chain[7]), 1);
        ck_assert_int_eq(go_add_edge(&g, &chain[0], &chain[LEN - 1]), 0); /* a shortcut is no cycle */
    }
}
END_TEST

Suite *graphorder_suite(void)
{
    Suite *s = suite_create("graphorder");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_graphs_against_brute_force);
    tcase_add_test(tc, nodes_placed_at_either_end);
    tcase_add_test(tc, every_graph_of_four_nodes);
    tcase_add_test(tc, long_chains);
    suite_add_tcase(s, tc);
    return s;
}
