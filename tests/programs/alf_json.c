/* report_format=json gives one JSON object per report. */
// expect: active-lock-freed
// options: report_format=json
// log: "kind":"active-lock-freed"
// log: "function":"main"
#include <pthread.h>
#include <stdlib.h>

int main(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    free(m);
    return 0;
}
