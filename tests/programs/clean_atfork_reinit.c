/* jemalloc's fork protocol: the prepare handler takes every arena mutex,
 * the parent's handler unlocks them, the child's initializes them again
 * (its copies are the parent's state; jemalloc calls malloc_mutex_init on
 * each). Re-initializing a lock the forking thread held at the fork is the
 * child resetting what it inherited, not destroying a held lock: no report,
 * and the child's exit status stays its own (redis' BGSAVE child failed
 * with 66). The child also frees a block whose lock was held at the fork. */
// expect: none
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARENAS 8
static pthread_mutex_t arena[ARENAS];
struct block { char pad[64]; pthread_mutex_t lock; };
static struct block *shared_block;

static void prepare(void)
{
    /* Taken first, with nothing held: no record yet (a lazy mutex). */
    pthread_mutex_lock(&shared_block->lock);
    for (int i = 0; i < ARENAS; i++)
        pthread_mutex_lock(&arena[i]);
}
static void parent(void)
{
    for (int i = ARENAS; i-- > 0;)
        pthread_mutex_unlock(&arena[i]);
    pthread_mutex_unlock(&shared_block->lock);
}
static void child(void)
{
    for (int i = 0; i < ARENAS; i++)
        pthread_mutex_init(&arena[i], NULL);
}

static void *worker(void *arg)
{
    for (int k = 0; k < 1000; k++) {
        pthread_mutex_lock(&arena[k % ARENAS]);
        pthread_mutex_unlock(&arena[k % ARENAS]);
    }
    return arg;
}

int main(void)
{
    for (int i = 0; i < ARENAS; i++)
        pthread_mutex_init(&arena[i], NULL);
    shared_block = calloc(1, sizeof *shared_block);
    pthread_mutex_init(&shared_block->lock, NULL);
    pthread_atfork(prepare, parent, child);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pid_t p = fork();
    if (p == 0) {
        pthread_mutex_lock(&arena[0]); /* the reset locks work */
        pthread_mutex_unlock(&arena[0]);
        free(shared_block); /* its lock was held at the fork: the child's copy goes */
        _exit(0);
    }
    int status;
    if (waitpid(p, &status, 0) != p)
        return 1;
    printf("child status %d\n", WEXITSTATUS(status));
    return WEXITSTATUS(status);
}
