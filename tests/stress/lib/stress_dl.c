/* A library dlopen'ed and dlclose'd in a loop: it has a static lock, a heap
 * lock made by its constructor and freed by its destructor, and thread-local
 * data. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *heap_lock;
static __thread int calls;

__attribute__((constructor)) static void lib_init(void)
{
    heap_lock = malloc(sizeof *heap_lock);
    pthread_mutex_init(heap_lock, NULL);
}

__attribute__((destructor)) static void lib_fini(void)
{
    pthread_mutex_destroy(heap_lock);
    free(heap_lock);
}

int stress_dl_call(pthread_mutex_t *caller_lock)
{
    pthread_mutex_lock(caller_lock);
    pthread_mutex_lock(&lib_lock);
    pthread_mutex_lock(heap_lock);
    free(malloc(32));
    calls++;
    pthread_mutex_unlock(heap_lock);
    pthread_mutex_unlock(&lib_lock);
    pthread_mutex_unlock(caller_lock);
    return calls;
}
