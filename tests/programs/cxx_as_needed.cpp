// A C++ program that uses only pthreads: linked with --as-needed it has no
// libstdc++ at all (it checks that itself), so no __cxa_demangle is in the
// process. Its lock-order inversion still reads as C++: the SUMMARY, the
// frames and the locks' names (namespace-scope statics, _ZN4shopL5itemsE)
// are demangled by rtdd's own demangler.
// expect: lock-order-inversion
// log: SUMMARY: rtdd: lock-order-inversion cxx_as_needed.cpp:34 in shop::Cart::take_reversed(void*)
// log: shop::Cart::take(void*)
// log: shop::items
// log: shop::totals
// no-log: _ZN
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

namespace shop {
static pthread_mutex_t items = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t totals = PTHREAD_MUTEX_INITIALIZER;
struct Cart {
    static void *take(void *);
    static void *take_reversed(void *);
};
__attribute__((noinline)) void *Cart::take(void *)
{
    pthread_mutex_lock(&items);
    pthread_mutex_lock(&totals);
    pthread_mutex_unlock(&totals);
    pthread_mutex_unlock(&items);
    return nullptr;
}
__attribute__((noinline)) void *Cart::take_reversed(void *)
{
    pthread_mutex_lock(&totals);
    pthread_mutex_lock(&items);
    pthread_mutex_unlock(&items);
    pthread_mutex_unlock(&totals);
    return nullptr;
}
} // namespace shop

int main()
{
    if (dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD)) {
        fprintf(stderr, "cxx_as_needed: libstdc++ is loaded: the case tests nothing\n");
        return 2;
    }
    pthread_t t;
    pthread_create(&t, nullptr, shop::Cart::take, nullptr);
    pthread_join(t, nullptr);
    pthread_create(&t, nullptr, shop::Cart::take_reversed, nullptr);
    pthread_join(t, nullptr);
    return 0;
}
