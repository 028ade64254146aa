/* halt_on_error=1: the first report ends the process with exitcode. */
// expect: active-lock-freed
// options: halt_on_error=1:exitcode=42
// exit: 42
// no-output: AFTER THE FREE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    free(m);
    printf("AFTER THE FREE\n");
    return 0;
}
