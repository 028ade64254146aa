/* Issues COUNT reports from COUNT different sites, then
 *   pause: prints "reported COUNT" and waits to be killed;
 *   run:   keeps working (locks, allocates, issues COUNT more reports from
 *          other sites) and prints "alive after N reports" (sites 0..2*COUNT-1). */
#include "freers.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 10;
    const char *mode = argc > 2 ? argv[2] : "run";
    if (count < 1 || count > 64)
        return 2;
    for (int i = 0; i < count; i++)
        free_held_lock(i);
    if (!strcmp(mode, "pause")) {
        printf("reported %d\n", count);
        fflush(stdout);
        for (;;)
            pause();
    }
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&m);
        free(malloc(16));
        pthread_mutex_unlock(&m);
    }
    for (int i = 0; i < count; i++)
        free_held_lock(count + i);
    printf("alive after %d reports\n", 2 * count);
    return 0;
}
