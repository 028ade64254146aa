/* Stands in for compiler-rt's test/tsan/test.h when its tests are built
 * natively (no -fsanitize=thread): what the lock tests use of it, written for
 * rtdd's peers suite. The barrier spins on an atomic counter and yields, so
 * that, as TSan's "invisible" test barrier, it orders the threads without a
 * pthread object: rtdd sees no lock, condvar or barrier of ours. */
#ifndef RTDD_PEERS_TSAN_TEST_H
#define RTDD_PEERS_TSAN_TEST_H
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <dlfcn.h>
#include <stddef.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>

/* One word per barrier: bits 24-31 the thread count, 12-23 the round,
 * 0-11 the threads arrived in this round. */
typedef unsigned invisible_barrier_t;

static inline void barrier_init(invisible_barrier_t *b, unsigned count) {
  __atomic_store_n(b, count << 24, __ATOMIC_RELEASE);
}

static inline void barrier_wait(invisible_barrier_t *b) {
  unsigned old = __atomic_fetch_add(b, 1, __ATOMIC_ACQ_REL);
  unsigned count = old >> 24, round = (old >> 12) & 0xfff;
  if ((old & 0xfff) + 1 == count) {
    /* Last to arrive: the next round starts with no one arrived. */
    __atomic_store_n(b, (count << 24) | (((round + 1) & 0xfff) << 12), __ATOMIC_RELEASE);
    return;
  }
  while (((__atomic_load_n(b, __ATOMIC_ACQUIRE) >> 12) & 0xfff) == round)
    sched_yield();
}

/* The default instance, as in TSan's header. */
invisible_barrier_t barrier;

static inline unsigned long long monotonic_clock_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* sanitizer_common's print_address: n pointers after a label, in the width
 * FileCheck patterns of the tests expect. */
static inline void print_address(const char *str, int n, ...) {
  fprintf(stderr, "%s", str);
  va_list ap;
  va_start(ap, n);
  while (n--) {
    void *p = va_arg(ap, void *);
    fprintf(stderr, "0x%012lx ", (unsigned long)p);
  }
  fprintf(stderr, "\n");
  va_end(ap);
}

const int kPCInc = 1;
#define ASM_SYMBOL(symbol) #symbol
/* The dynamic annotations (compat/annotations.c, a shared library the
 * tests are linked with, as annotated programs ship them). */
#ifdef __cplusplus
extern "C" {
#endif
void AnnotateRWLockCreate(const char *file, int line, const volatile void *lock);
void AnnotateRWLockCreateStatic(const char *file, int line, const volatile void *lock);
void AnnotateRWLockDestroy(const char *file, int line, const volatile void *lock);
void AnnotateRWLockAcquired(const char *file, int line, const volatile void *lock, long is_w);
void AnnotateRWLockReleased(const char *file, int line, const volatile void *lock, long is_w);
#ifdef __cplusplus
}
#endif

#endif
