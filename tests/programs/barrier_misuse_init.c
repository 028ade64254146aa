/* pthread_barrier_init misused: a count of 0 (glibc fails it with EINVAL),
 * a barrier initialized twice without a destroy between (DRD's
 * pth_barrier_reinit), and a wait on a barrier after its destroy. */
// expect: barrier-misuse barrier-misuse barrier-misuse
// log: WARNING: barrier misuse
// log: with a count of 0, at:
// log: initializes barrier [
// log: again, at:
// log: it was initialized by barrier_misuse_/
// log: and it was not destroyed since
// log: calls pthread_barrier_wait() on barrier [
// log: which was destroyed and not initialized again, at:
// log: SUMMARY: rtdd: barrier-misuse barrier_misuse_init.c:21 in main
// log: SUMMARY: rtdd: barrier-misuse barrier_misuse_init.c:24 in main
// log: SUMMARY: rtdd: barrier-misuse barrier_misuse_init.c:29 in main
#include <pthread.h>

int main(void)
{
    pthread_barrier_t zero, twice, gone;
    int bad = pthread_barrier_init(&zero, NULL, 0) == 0;

    pthread_barrier_init(&twice, NULL, 1);
    pthread_barrier_init(&twice, NULL, 1);
    pthread_barrier_destroy(&twice);

    pthread_barrier_init(&gone, NULL, 1);
    pthread_barrier_destroy(&gone);
    pthread_barrier_wait(&gone); /* glibc: a count of 1 still, it returns */
    return bad;
}
