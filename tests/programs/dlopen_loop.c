/* dlopen/dlclose in a loop of a library that locks and allocates. */
// expect: none
#include <dlfcn.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0)
        return 1;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, "libearly.so");
    for (int i = 0; i < 200; i++) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        const char *(*value)(void) = (const char *(*)(void))dlsym(h, "early_value");
        if (!value || strcmp(value(), "early"))
            return 1;
        dlclose(h);
    }
    return 0;
}
