/* Calls on semaphores that are not usable: one never initialized (a
 * zeroed static: glibc takes it as a count of 0 and never complains), one
 * used after sem_destroy, and one whose bytes were overwritten after
 * sem_init (Helgrind's tc18_semabuse fills one with 0x55). Each is
 * reported once, at the first call that finds it so. */
// expect: sem-misuse sem-misuse sem-misuse
// log: calls sem_post() on semaphore
// log: which was never initialized, at:
// log: calls sem_trywait() on semaphore
// log: which was destroyed (or, named, closed) and not initialized again, at:
// log: it was destroyed by sem_misuse_unus/
// log: calls sem_wait() on semaphore
// log: but its bytes are not a semaphore's any more
// log: SUMMARY: rtdd: sem-misuse sem_misuse_unusable.c:27 in main
// log: SUMMARY: rtdd: sem-misuse sem_misuse_unusable.c:33 in main
// log: SUMMARY: rtdd: sem-misuse sem_misuse_unusable.c:38 in main
#include <semaphore.h>
#include <string.h>

static sem_t never;

int main(void)
{
    sem_t gone, scribbled;
    int n = 0;

    sem_post(&never);
    sem_wait(&never); /* reported once: its record exists now */
    sem_post(&never);

    sem_init(&gone, 0, 1);
    sem_destroy(&gone);
    n += sem_trywait(&gone) == 0;

    sem_init(&scribbled, 0, 0);
    memset(&scribbled, 0x55, sizeof scribbled);
    /* glibc reads a count of 0x55555555: it returns at once. */
    n += sem_wait(&scribbled) == 0;
    return n == 2 ? 0 : 1;
}
