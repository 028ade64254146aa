#include "report/demangle.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);
static cxa_demangle_fn demangler;
static int looked, may_load;

void rt_demangle_may_load(void)
{
    may_load = 1;
}

static cxa_demangle_fn find_demangler(void)
{
    if (looked)
        return demangler;
    looked = 1;
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | (may_load ? 0 : RTLD_NOLOAD));
        if (h)
            f = dlsym(h, "__cxa_demangle");
    }
    demangler = (cxa_demangle_fn)f;
    return demangler;
}

int rt_demangle(const char *name, char *out, size_t cap)
{
    if (!name || strncmp(name, "_Z", 2) != 0 || cap == 0)
        return 0;
    cxa_demangle_fn d = find_demangler();
    if (!d)
        return 0;
    /* A symbol version (..@@GLIBCXX_3.4.22) is kept, after the name. */
    const char *at = strchr(name, '@');
    char *bare = at ? strndup(name, (size_t)(at - name)) : NULL;
    if (at && !bare)
        return 0;
    int status = -1;
    char *plain = d(bare ? bare : name, NULL, NULL, &status);
    free(bare);
    if (!plain || status != 0) {
        free(plain);
        return 0;
    }
    size_t n = strlen(plain), v = at ? strlen(at) : 0;
    if (n + v >= cap)
        n = cap - 1 > v ? cap - 1 - v : cap - 1;
    memcpy(out, plain, n);
    if (at && n + v < cap) {
        memcpy(out + n, at, v);
        n += v;
    }
    out[n] = 0;
    free(plain);
    return 1;
}
