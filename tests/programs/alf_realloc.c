/* realloc moves (or ends the life of) an object with a held lock inside. */
// expect: active-lock-freed
// log: in grow_table
#include <pthread.h>
#include <stdlib.h>

struct table { pthread_mutex_t lock; size_t n; };

__attribute__((noinline)) static struct table *grow_table(struct table *t)
{
    return realloc(t, 1 << 20);
}

int main(void)
{
    struct table *t = malloc(sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_lock(&t->lock);
    t = grow_table(t);
    free(t);
    return 0;
}
