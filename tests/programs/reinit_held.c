/* pthread_mutex_init, pthread_spin_init and mtx_init over a lock that is
 * still held (Helgrind's "re-initialising a locked mutex", written anew):
 * each is a destroy-locked report, judged before the init resets the lock;
 * a heap mutex the same. */
// expect: destroy-locked destroy-locked destroy-locked destroy-locked
// log: re-initializing
// log: SUMMARY: rtdd: destroy-locked reinit_held.c:22 in main
#include <pthread.h>
#include <stdlib.h>
#include <threads.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static mtx_t c11_lock;

int main(void)
{
    pthread_mutex_t *heap = malloc(sizeof *heap);
    pthread_mutex_init(heap, NULL);
    pthread_mutex_lock(heap);
    pthread_mutex_lock(&config_lock);
    pthread_mutex_init(&config_lock, NULL); /* held: reported */
    pthread_mutex_init(heap, NULL);         /* held: reported */
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&spin);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE); /* held: reported */
    mtx_init(&c11_lock, mtx_plain);
    mtx_lock(&c11_lock);
    mtx_init(&c11_lock, mtx_plain); /* held: reported */
    /* Initialized again while free: silent. */
    pthread_mutex_unlock(&config_lock);
    pthread_mutex_init(&config_lock, NULL);
    free(heap);
    return 0;
}
