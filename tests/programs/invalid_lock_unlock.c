/* Unlocks of memory that never was a lock: heap bytes that read as
 * glibc's mark of a destroyed mutex (kind -1) but have users and a lock
 * word no destroyed mutex has, and
 * a pointer 8 bytes into a real, initialized mutex. Each is invalid-lock
 * (TSan's "unlock of an unlocked mutex", DRD's "not a mutex"), not
 * use-after-destroy or bad-unlock; a real mutex destroyed and then locked
 * stays use-after-destroy. Afterwards the program nests its real locks in
 * one order: nothing else to report (the bogus objects are in no held set
 * and no lock order). */
// expect: invalid-lock invalid-lock use-after-destroy
// log: WARNING: invalid lock: an object that is not a lock is used as one
// log: as a pthread_mutex_t in pthread_mutex_unlock(), at:
// log: its bytes are neither a live mutex nor a destroyed one
// log: as a lock in an unlock, at:
// log: but it is not a lock: it lies 8 bytes inside another lock object, [
// log: WARNING: use of a destroyed lock
// log: it was destroyed by
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER, inner = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t real;

static void unlock_marked(void *p) { pthread_mutex_unlock((pthread_mutex_t *)p); }
static void unlock_inside(void *p) { pthread_mutex_unlock((pthread_mutex_t *)p); }
static void lock_destroyed(void) { pthread_mutex_lock(&real); }

static void *nest(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&outer);
    pthread_mutex_lock(&inner);
    pthread_mutex_unlock(&inner);
    pthread_mutex_unlock(&outer);
    return NULL;
}

int main(void)
{
    void *marked = malloc(sizeof(pthread_mutex_t));
    memset(marked, 0xff, sizeof(pthread_mutex_t));
    unlock_marked(marked);
    pthread_mutex_init(&real, NULL);
    pthread_mutex_lock(&real);
    pthread_mutex_unlock(&real);
    unlock_inside((char *)&real + 8);
    pthread_mutex_destroy(&real);
    lock_destroyed();
    pthread_t t;
    pthread_create(&t, NULL, nest, NULL);
    pthread_join(t, NULL);
    nest(NULL);
    free(marked);
    return 0;
}
