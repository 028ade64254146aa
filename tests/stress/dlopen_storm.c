/* Four threads dlopen, call and dlclose the same library (a library that
 * locks, allocates, has a constructor, a destructor and TLS) ROUNDS times
 * each (default 400), while a fifth thread does the same with a second copy.
 * Nothing reported, no crash. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char lib[2][4200];
static int rounds;
static pthread_mutex_t caller = PTHREAD_MUTEX_INITIALIZER;

static void *looper(void *arg)
{
    const char *path = lib[(long)arg == 4];
    for (int i = 0; i < rounds; i++) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return (void *)1;
        }
        int (*call)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(h, "stress_dl_call");
        if (!call || call(&caller) < 1)
            return (void *)1;
        dlclose(h);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atoi(argv[1]) : 400;
    char self[4000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 64);
    if (n <= 0)
        return 1;
    self[n] = 0;
    *strrchr(self, '/') = 0;
    snprintf(lib[0], sizeof lib[0], "%s/libstress_dl.so", self);
    snprintf(lib[1], sizeof lib[1], "%s/libstress_dl2.so", self);
    pthread_t t[5];
    long bad = 0;
    for (long i = 0; i < 5; i++)
        pthread_create(&t[i], NULL, looper, (void *)i);
    for (int i = 0; i < 5; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (long)r;
    }
    printf("dlopen_storm: %d dlopen/dlclose rounds, %ld threads failed\n", 5 * rounds, bad);
    return bad != 0;
}
