/* A pool of two workers and two tasks, A then B, and B then A. In a plain
 * run the first worker runs both tasks before the second one wakes (it
 * sleeps 500 ms first): one thread made both edges, so rtdd calls the
 * cycle latent (INFO, exit 0). Steered, the first worker is paused inside
 * the first task, the second one takes the second task, and the two
 * deadlock: confirmed, and the latent cycle becomes a BUG (exit 66). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t queue = PTHREAD_MUTEX_INITIALIZER;
static int next_task;
static long done;

static void task_ab(void)
{
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    done++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
}

static void task_ba(void)
{
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    done++;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
}

static void *worker(void *arg)
{
    if (arg) {
        struct timespec ts = { 0, 500 * 1000000L };
        nanosleep(&ts, NULL);
    }
    for (;;) {
        pthread_mutex_lock(&queue);
        int task = next_task < 2 ? next_task++ : -1;
        pthread_mutex_unlock(&queue);
        if (task < 0)
            return NULL;
        if (task == 0)
            task_ab();
        else
            task_ba();
    }
}

int main(void)
{
    pthread_t w1, w2;
    pthread_create(&w1, NULL, worker, NULL);
    pthread_create(&w2, NULL, worker, (void *)1);
    pthread_join(w1, NULL);
    pthread_join(w2, NULL);
    printf("done %ld\n", done);
    return 0;
}
