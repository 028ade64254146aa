/* 128 distinct functions that free a pointer, so that each call site gives
 * a report of its own (different stack, different SUMMARY function). */
#include <stdlib.h>
#define FREER(n) __attribute__((noinline)) void free_site_##n(void *p) { free(p); __asm__ volatile("" ::: "memory"); }
#define FREER8(n) FREER(n##0) FREER(n##1) FREER(n##2) FREER(n##3) FREER(n##4) FREER(n##5) FREER(n##6) FREER(n##7)
FREER8(0) FREER8(1) FREER8(2) FREER8(3) FREER8(4) FREER8(5) FREER8(6) FREER8(7)
FREER8(8) FREER8(9) FREER8(a) FREER8(b) FREER8(c) FREER8(d) FREER8(e) FREER8(f)
#define F8(n) free_site_##n##0, free_site_##n##1, free_site_##n##2, free_site_##n##3, \
              free_site_##n##4, free_site_##n##5, free_site_##n##6, free_site_##n##7
static void (*const freers[128])(void *) = { F8(0), F8(1), F8(2), F8(3), F8(4), F8(5), F8(6), F8(7),
                                             F8(8), F8(9), F8(a), F8(b), F8(c), F8(d), F8(e), F8(f) };

#include <pthread.h>
/* One active-lock-freed report from site n. */
static inline void free_held_lock(int n)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    freers[n](m);
}
