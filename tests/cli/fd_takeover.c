/* A program that takes descriptors the runtime's log may use: with "reopen"
 * it closes fd 2 and opens its data file there; with "fill" it dup2s its
 * stdout over descriptors 3..400; with "range" it close_range()s 3..~0.
 * Then it makes a bad unlock (a report) and writes more data. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/close_range.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    int data = 1;
    if (!strcmp(argv[1], "reopen") && argc == 3) {
        close(2);
        data = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644); /* fd 2 again */
        if (data != 2)
            return 3;
    } else if (!strcmp(argv[1], "fill")) {
        for (int fd = 3; fd <= 400; fd++)
            dup2(1, fd);
    } else if (!strcmp(argv[1], "range")) {
        close_range(3, ~0u, 0);
    }
    dprintf(data, "data line 1\n");
    pthread_mutex_unlock(&m); /* not held: a report */
    dprintf(data, "data line 2\n");
    return 0;
}
