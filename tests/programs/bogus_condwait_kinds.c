/* Condition waits given a "mutex" that is not a usable one (the shapes of
 * Helgrind's tc23_bogus_condwait): a misaligned pointer into a real
 * mutex, a mutex not locked, a reader-writer lock passed as a mutex, and
 * a mutex another thread holds. A helper signals each wait in turn. */
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
static pthread_mutex_t mx[4];
static pthread_cond_t cv;
static pthread_rwlock_t rwl;
static sem_t quit_now, grabbed;

static void *rescuer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        usleep(200000);
        pthread_cond_signal(&cv);
    }
    sem_wait(&quit_now);
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
    sem_post(&quit_now);
    sem_post(&quit_now);
    pthread_join(r, NULL);
    pthread_join(g, NULL);
    return 0;
}
