/* Eight threads issue a report each at the same moment, sixteen rounds of
 * eight new threads, from 128 different sites: 128 complete reports, no line
 * of one inside another. */
#include "freers.h"
#include <stdio.h>

static pthread_barrier_t go;

static void *worker(void *arg)
{
    long site = (long)arg;
    pthread_barrier_wait(&go);
    free_held_lock((int)site);
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&go, NULL, 8);
    for (int round = 0; round < 16; round++) {
        pthread_t t[8];
        for (long i = 0; i < 8; i++)
            pthread_create(&t[i], NULL, worker, (void *)(round * 8 + i));
        for (int i = 0; i < 8; i++)
            pthread_join(t[i], NULL);
    }
    printf("report_storm: done\n");
    return 0;
}
