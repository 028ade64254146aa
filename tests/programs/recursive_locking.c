/* A thread locks a mutex it already holds: with halt_on_error=1 the hang
 * becomes a report and an exit. */
// expect: recursive-locking
// options: halt_on_error=1
// log: WARNING: possible recursive locking detected
// log: *** DEADLOCK ***
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
__attribute__((noinline)) static void helper(void) { pthread_mutex_lock(&m); }
int main(void)
{
    pthread_mutex_lock(&m);
    helper();
    printf("NOT HUNG\n");
    return 0;
}
