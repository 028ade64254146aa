/* Objects with embedded locks are freed and new ones land at the same
 * addresses; orders between old and new objects must not mix. */
// expect: none
#include <pthread.h>
#include <stdlib.h>
struct node { pthread_mutex_t lock; int v; };
int main(void)
{
    for (int round = 0; round < 200; round++) {
        struct node *x = malloc(sizeof *x), *y = malloc(sizeof *y);
        pthread_mutex_init(&x->lock, NULL);
        pthread_mutex_init(&y->lock, NULL);
        /* Even rounds x->y, odd rounds y->x: the objects differ each round. */
        struct node *first = round & 1 ? y : x, *second = round & 1 ? x : y;
        pthread_mutex_lock(&first->lock);
        pthread_mutex_lock(&second->lock);
        pthread_mutex_unlock(&second->lock);
        pthread_mutex_unlock(&first->lock);
        free(x);
        free(y);
    }
    return 0;
}
