/* A thread frees the object whose lock it holds. */
// expect: active-lock-freed
// log: is held by this thread
// log: in destroy_session
#include <pthread.h>
#include <stdlib.h>

struct session { int id; pthread_mutex_t lock; };

__attribute__((noinline)) static void destroy_session(struct session *s)
{
    free(s);
}

int main(void)
{
    struct session *s = malloc(sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_lock(&s->lock);
    destroy_session(s);
    return 0;
}
