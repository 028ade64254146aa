/* A 3-lock cycle over heap locks, learned by three threads one after the
 * other: A->B, B->C, C->A. */
// expect: lock-order-inversion
// log: The existing dependency chain (in reverse order) is:
// log: -> #2
#include <pthread.h>
#include <stdlib.h>
struct account { long balance; pthread_mutex_t lock; };
static struct account *acct[3];
static void *transfer(void *arg)
{
    long i = (long)arg;
    struct account *from = acct[i], *to = acct[(i + 1) % 3];
    pthread_mutex_lock(&from->lock);
    pthread_mutex_lock(&to->lock);
    from->balance--, to->balance++;
    pthread_mutex_unlock(&to->lock);
    pthread_mutex_unlock(&from->lock);
    return NULL;
}
int main(void)
{
    for (int i = 0; i < 3; i++) {
        acct[i] = calloc(1, sizeof *acct[i]);
        pthread_mutex_init(&acct[i]->lock, NULL);
    }
    for (long i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, NULL, transfer, (void *)i);
        pthread_join(t, NULL);
    }
    return 0;
}
