/* Valgrind's tests include "../../config.h" (written by Valgrind's configure).
 * Ours, for building helgrind/tests and drd/tests natively on Debian 12
 * amd64 with gcc and glibc 2.36: what that platform has. */
#ifndef RTDD_PEERS_CONFIG_H
#define RTDD_PEERS_CONFIG_H
#define VGO_linux 1
#define VGA_amd64 1
#define VGP_amd64_linux 1
#define HAVE_ASM_UNISTD_H 1
#define HAVE_BUILTIN_ATOMIC 1
#define HAVE_PTHREAD_CONDATTR_SETCLOCK 1
#define HAVE_PTHREAD_MUTEX_ERRORCHECK_NP 1
#define HAVE_PTHREAD_MUTEX_RECURSIVE_NP 1
#define HAVE_PTHREAD_MUTEX_TIMEDLOCK 1
#define HAVE_PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP 1
#define HAVE_PTHREAD_RWLOCK_TIMEDRDLOCK 1
#define HAVE_PTHREAD_RWLOCK_TIMEDWRLOCK 1
#define HAVE_PTHREAD_YIELD 1
#define HAVE_TLS 1
#endif
