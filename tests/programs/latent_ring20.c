/* One thread closes a ring of 20 locks (compiler-rt's mutex_cycle_long
 * with 20): m0 -> m1, m1 -> m2, ..., m19 -> m0. Longer than a report
 * lists, it is still reported, whole in its count: latent (one thread made
 * every edge), with the edges not listed said with their number. */
// expect: latent-lock-order
// log: INFO: latent circular locking dependency: 20 threads would have to run these paths at once
// log: -> ... (3 more locks) ->
// log: -> ... 3 more edges of the cycle, not listed (it has 20 locks; a report lists the first 15, the last and the closing one)
// exit: 0
#include <pthread.h>
#define N 20
static pthread_mutex_t m[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&m[i], NULL);
    for (int i = 0; i < N - 1; i++) {
        pthread_mutex_lock(&m[i]);
        pthread_mutex_lock(&m[i + 1]);
        pthread_mutex_unlock(&m[i + 1]);
        pthread_mutex_unlock(&m[i]);
    }
    pthread_mutex_lock(&m[N - 1]);
    pthread_mutex_lock(&m[0]);
    pthread_mutex_unlock(&m[0]);
    pthread_mutex_unlock(&m[N - 1]);
    for (int i = 0; i < N; i++)
        pthread_mutex_destroy(&m[i]);
    return 0;
}
