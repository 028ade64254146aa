/* Helgrind's tc20_verifywrap shape: a mutex on the stack, beside real
 * mutexes, never initialized and filled with 0xff, then locked, tried and
 * timed-locked (glibc fails each with EINVAL). Its kind field reads -1,
 * glibc's mark of a destroyed mutex, but a destroyed mutex has no users and
 * a zero lock word: this is no mutex, and no lock was ever here, so it is
 * invalid-lock (once for the object), never use-after-destroy; a real
 * mutex beside it, destroyed and then locked, stays use-after-destroy. */
// expect: invalid-lock use-after-destroy
// log: as a pthread_mutex_t in pthread_mutex_lock(), at:
// log: its bytes are neither a live mutex nor a destroyed one
// log: WARNING: use of a destroyed lock
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void __attribute__((noinline)) use_filled(pthread_mutex_t *m)
{
    struct timespec when = { 0, 0 };
    memset(m, 0xff, sizeof *m);
    int a = pthread_mutex_lock(m);
    memset(m, 0xff, sizeof *m);
    int b = pthread_mutex_trylock(m);
    memset(m, 0xff, sizeof *m);
    int c = pthread_mutex_timedlock(m, &when);
    printf("filled: %s\n", a && b && c ? "every call failed" : "a call succeeded");
}

int main(void)
{
    pthread_mutex_t before, filled, after;
    pthread_mutex_init(&before, NULL);
    pthread_mutex_init(&after, NULL);
    pthread_mutex_lock(&before);
    pthread_mutex_unlock(&before);
    use_filled(&filled);
    pthread_mutex_destroy(&after);
    int r = pthread_mutex_lock(&after);
    printf("destroyed: %s\n", r ? "lock failed" : "locked");
    pthread_mutex_destroy(&before);
    return 0;
}
