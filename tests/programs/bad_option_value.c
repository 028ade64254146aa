/* A bad value stops the program before main, naming the key. */
// expect: none
// options: exitcode=lots
// exit: 2
// stderr: bad value 'lots' for option 'exitcode'
// no-output: MAIN RAN
#include <stdio.h>
int main(void)
{
    printf("MAIN RAN\n");
    return 0;
}
