/* Several threads hit bugs while the process exits.
 *   dup:      the same bad unlock in every thread at once, and one of them
 *             calls exit(2) right after its own, which may be a duplicate
 *             of the report another thread is still writing;
 *   distinct: a different active-lock-freed in each, the same exit;
 *   busy:     six threads report one distinct bug after another (21
 *             sites each) while main calls exit(0) after DELAY_US: reports
 *             are claimed while the exit path writes the summary.
 * The summary must count exactly the reports in the log, and the exit
 * status must be the runtime's exitcode exactly when it counts one.
 * Usage: exit_report_race dup|distinct|busy [DELAY_US] */
#include "freers.h"
#include <string.h>
#include <unistd.h>

static pthread_mutex_t never_locked = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static int distinct, busy;

#define THREADS 6

static void *hit(void *arg)
{
    long i = (long)arg;
    pthread_barrier_wait(&start);
    if (busy) {
        for (int k = 0; k < 21; k++) {
            free_held_lock((int)i * 21 + k);
            usleep(200);
        }
        return NULL;
    }
    if (distinct)
        free_held_lock((int)i);
    else
        pthread_mutex_unlock(&never_locked);
    if (i == THREADS - 1)
        exit(2);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 3;
    distinct = !strcmp(argv[1], "distinct");
    busy = !strcmp(argv[1], "busy");
    pthread_t t[THREADS];
    pthread_mutex_lock(&never_locked); /* known to the runtime, then free again */
    pthread_mutex_unlock(&never_locked);
    pthread_barrier_init(&start, NULL, THREADS);
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hit, (void *)i);
    if (busy) {
        usleep((useconds_t)(argc > 2 ? atoi(argv[2]) : 0));
        exit(0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
