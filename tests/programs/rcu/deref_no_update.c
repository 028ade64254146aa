/* A thread reads an RCU pointer with rcu_dereference() outside any
 * read-side critical section and holding no lock, but nobody updates the
 * pointer afterwards: under the default rule (rcu_deref_rule=updaters)
 * nothing makes that read unsafe, and nothing is reported.
 * deref_no_update_lockdep.c runs the same program under
 * rcu_deref_rule=lockdep, which reports it. */
// expect: none
#include "rcu_api.h"
#include <stdlib.h>
struct settings { int verbose; };
static struct settings *settings;

__attribute__((noinline)) static int read_verbose(void)
{
    struct settings *s = rcu_dereference(settings); /* no section, no lock */
    return s ? s->verbose : 0;
}

static void *worker(void *arg)
{
    test_rcu_online();
    long v = read_verbose();
    test_rcu_offline();
    return (void *)(v + (arg != NULL));
}

int main(void)
{
    pthread_t w;
    struct settings *s = calloc(1, sizeof *s);
    test_rcu_online();
    rcu_assign_pointer(settings, s);
    pthread_create(&w, NULL, worker, NULL);
    pthread_join(w, NULL);
    free(settings);
    test_rcu_offline();
    return 0;
}
