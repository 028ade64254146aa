/* Every lock type freed while held: an rwlock held for reading by another
 * thread, a spinlock, a lock in munmapped memory, and a lock on a thread's
 * own stack when the thread ends. */
// expect: active-lock-freed active-lock-freed active-lock-freed active-lock-freed
// log: (pthread_rwlock_t)
// log: (pthread_spinlock_t)
// log: is the stack of
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
struct table { pthread_rwlock_t rw; };
struct counter { int n; pthread_spinlock_t spin; };
static pthread_barrier_t b;
static void *reader(void *arg)
{
    struct table *t = arg;
    pthread_rwlock_rdlock(&t->rw);
    pthread_barrier_wait(&b);
    pthread_barrier_wait(&b);
    return NULL;
}
static void *stack_lock(void *arg)
{
    (void)arg;
    pthread_mutex_t on_stack;
    pthread_mutex_init(&on_stack, NULL);
    pthread_mutex_lock(&on_stack);
    return NULL; /* the lock dies with the frame, still held */
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&b, NULL, 2);
    struct table *tab = malloc(sizeof *tab);
    pthread_rwlock_init(&tab->rw, NULL);
    pthread_create(&t, NULL, reader, tab);
    pthread_barrier_wait(&b);
    free(tab);
    pthread_barrier_wait(&b);
    pthread_join(t, NULL);

    struct counter *c = malloc(sizeof *c);
    pthread_spin_init(&c->spin, 0);
    pthread_spin_lock(&c->spin);
    free(c);

    pthread_mutex_t *mapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_mutex_init(mapped, NULL);
    pthread_mutex_lock(mapped);
    munmap(mapped, 4096);

    pthread_create(&t, NULL, stack_lock, NULL);
    pthread_join(t, NULL);
    return 0;
}
