/* sem_destroy of a named semaphore: POSIX defines it only for sem_init's
 * (a named one ends with sem_close and sem_unlink). */
// expect: sem-misuse
// log: destroys semaphore
// log: but it is a named semaphore, from sem_open: sem_destroy is undefined on it
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    char name[64];
    snprintf(name, sizeof name, "/rtdd-named-destroy-%d", (int)getpid());
    sem_t *s = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
    if (s == SEM_FAILED)
        return 1;
    sem_unlink(name);
    sem_wait(s);
    sem_post(s);
    sem_destroy(s);
    sem_close(s);
    return 0;
}
