/* A library the program links against: its constructor runs before the
 * preloaded runtime's and allocates and locks (M2 in interpose-pitfalls). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
char *early_buffer;

__attribute__((constructor)) static void early_init(void)
{
    pthread_mutex_lock(&early_lock);
    early_buffer = malloc(64);
    strcpy(early_buffer, "early");
    void *tmp = calloc(10, 10);
    tmp = realloc(tmp, 1000);
    free(tmp);
    pthread_mutex_unlock(&early_lock);
}

__attribute__((destructor)) static void early_fini(void)
{
    pthread_mutex_lock(&early_lock);
    free(early_buffer);
    pthread_mutex_unlock(&early_lock);
}

const char *early_value(void)
{
    return early_buffer;
}
