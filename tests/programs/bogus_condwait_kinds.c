/* Condition waits given a "mutex" that is not a usable one (the shapes of
 * Helgrind's tc23_bogus_condwait): a misaligned pointer into a real
 * mutex and a reader-writer lock passed as a mutex are not mutexes
 * (invalid-lock, named as what they are); a mutex not locked and one
 * another thread holds are real mutexes the thread does not hold
 * (cond-misuse). A helper signals until every wait has returned. No misuse poisons
 * the model: the waiter is not taken to hold the mutex another thread
 * holds, so the grabber's wait on a semaphore that main posts is no
 * cond-lock-order, and a thread that exits after a wait on bytes of a
 * buffer holds no lock at its exit. */
// expect: invalid-lock cond-misuse invalid-lock cond-misuse invalid-lock
// log: as a pthread_mutex_t in a condition wait, at:
// log: but it is not a lock: it lies 1 byte inside another lock object, [
// log: mx (pthread_mutex_t, initialized at bogus_condwait_kinds.c:
// log: but it is not a lock: it is another kind of object, [
// log: rwl (pthread_rwlock_t, initialized at bogus_condwait_kinds.c:
// log: its address is not 8-byte aligned, as every pthread_mutex_t is
// no-log: use of a destroyed lock
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t mx[4];
static pthread_cond_t cv;
static pthread_rwlock_t rwl;
static sem_t quit_now, grabbed;

static volatile int waits_done;

/* Signals until main is through its waits: none can miss its wake-up. */
static void *rescuer(void *arg)
{
    (void)arg;
    while (!waits_done) {
        usleep(20000);
        pthread_cond_signal(&cv);
    }
    sem_wait(&quit_now);
    return NULL;
}

/* Waits once on a "mutex" made of a buffer's bytes, then exits. */
static void *buffer_waiter(void *arg)
{
    static char buf[64];
    struct timespec until;
    (void)arg;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&cv, (pthread_mutex_t *)(buf + 3), &until);
    return NULL;
}

static void *grabber(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mx[2]);
    sem_post(&grabbed);
    sem_wait(&quit_now);
    pthread_mutex_unlock(&mx[2]);
    return NULL;
}

int main(void)
{
    pthread_t r, g;
    for (int i = 0; i < 4; i++)
        pthread_mutex_init(&mx[i], NULL);
    pthread_cond_init(&cv, NULL);
    pthread_rwlock_init(&rwl, NULL);
    sem_init(&quit_now, 0, 0);
    sem_init(&grabbed, 0, 0);
    pthread_create(&g, NULL, grabber, NULL);
    sem_wait(&grabbed);
    pthread_create(&r, NULL, rescuer, NULL);
    pthread_cond_wait(&cv, (pthread_mutex_t *)(1 + (char *)&mx[0])); /* not a mutex */
    pthread_cond_wait(&cv, &mx[0]);                                  /* not locked */
    pthread_cond_wait(&cv, (pthread_mutex_t *)&rwl);                 /* not a mutex: an rwlock */
    pthread_cond_wait(&cv, &mx[2]);                                  /* held by another thread */
    waits_done = 1;
    pthread_t b;
    pthread_create(&b, NULL, buffer_waiter, NULL);
    pthread_join(b, NULL);
    sem_post(&quit_now);
    sem_post(&quit_now);
    pthread_join(r, NULL);
    pthread_join(g, NULL);
    return 0;
}
