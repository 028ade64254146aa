/* A library is closed while its static mutex is held, loaded again (often
 * at the same address) and its fresh mutex taken and kept across the next
 * dlclose. Unmapping the library ended the old lock's life: each held lock
 * is an active lock freed, and the new mutex is a new lock, not the old one
 * taken again (no false recursive-locking deadlock). The library's frames
 * are gone with it by the time the report is written. */
// expect: active-lock-freed active-lock-freed
// log: libheld.so, unloaded by dlclose(), unmapped by
// log: SUMMARY: rtdd: active-lock-freed dlclose_held_lock.c:
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *open_library(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    return h;
}

/* Opens the library, takes its lock and closes it holding the lock. The
 * two rounds call it from two lines of main: a round whose library lands
 * at the same address would otherwise repeat the first report frame for
 * frame (and be written once, as any duplicate). */
static __attribute__((noinline)) int round_trip(const char *path)
{
    void *h = open_library(path);
    if (!h)
        return 1;
    void (*enter)(void) = (void (*)(void))dlsym(h, "library_enter");
    if (!enter)
        return 1;
    enter(); /* returns holding library_lock */
    dlclose(h);
    return 0;
}

int main(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0)
        return 1;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, "libheld.so");
    if (round_trip(path))
        return 1;
    if (round_trip(path))
        return 1;
    return 0;
}
