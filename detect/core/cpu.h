/* Where the engine reads the current CPU: the thread's rseq area, which the
 * kernel keeps current (a load instead of a getcpu call). glibc registers
 * one per thread; where it registered none (glibc.pthread.rseq=0, an old
 * glibc) the runtime registers its own, and gives a thread's up when the
 * program registers one there itself (interpose/rseq.c). */
#ifndef RTDD_CPU_H
#define RTDD_CPU_H
#include <stdint.h>

/* 1 when threads have rseq areas to read (glibc's or the runtime's); 0:
 * the CPU costs a getcpu call, and the fast paths leave it to the slow. */
extern int rt_cpu_rseq;

/* Process start-up, on the thread that sets the runtime up: glibc's areas,
 * else (if may_register: option register_rseq) the runtime's own, if the
 * kernel takes one. */
void rt_cpu_setup(int may_register);

/* The calling thread's CPU word (an rseq area's cpu_id), registering the
 * runtime's area for the thread first where those are in use. Never
 * NULL: a word that reads -1 (CPU unknown) when the thread has no area. */
const volatile uint32_t *rt_cpu_thread_word(void);

/* The program registers its own rseq area on the calling thread: the
 * runtime's goes first (the kernel takes one per thread). rt_cpu_after_register
 * says how that went and returns the thread's CPU word from now on. */
void rt_cpu_before_register(void);
const volatile uint32_t *rt_cpu_after_register(const void *area, long result);
/* The program unregisters an area (its own, or glibc's): the runtime's
 * comes back where it had one. */
const volatile uint32_t *rt_cpu_after_unregister(const void *area, long result);

/* Reads a CPU word: -1 when unknown. */
static inline int rt_cpu_read(const volatile uint32_t *word)
{
    return (int)(int32_t)__atomic_load_n(word, __ATOMIC_RELAXED);
}
#endif
