/* The count pushed past SEM_VALUE_MAX: a sem_init asking for more (glibc
 * fails it with EINVAL, leaving the semaphore uninitialized) and a post
 * on a semaphore already at SEM_VALUE_MAX (EOVERFLOW: the post is lost). */
// expect: sem-misuse sem-misuse
// log: with the count 2147483648, at:
// log: which is past SEM_VALUE_MAX (2147483647): sem_init fails with EINVAL
// log: but its count is already SEM_VALUE_MAX (2147483647): sem_post fails with EOVERFLOW
// log: SUMMARY: rtdd: sem-misuse sem_misuse_overflow.c:19 in main
// log: SUMMARY: rtdd: sem-misuse sem_misuse_overflow.c:22 in main
#include <errno.h>
#include <limits.h>
#include <semaphore.h>

int main(void)
{
    sem_t big, full;
    int bad = 0;

    bad += sem_init(&big, 0, SEM_VALUE_MAX + 1u) == 0;
    sem_init(&full, 0, SEM_VALUE_MAX - 1);
    sem_post(&full); /* now at SEM_VALUE_MAX: fine */
    bad += sem_post(&full) == 0 || errno != EOVERFLOW;
    sem_destroy(&full);
    return bad;
}
