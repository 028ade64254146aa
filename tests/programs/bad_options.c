/* An unknown RTDD_OPTIONS key stops the program before main. */
// expect: none
// env: RTDD_EXTRA=1
// options: halt_on_eror=1
// exit: 2
// stderr: unknown option 'halt_on_eror'
// stderr: valid options: log_path, report_format
// no-output: MAIN RAN
#include <stdio.h>
int main(void)
{
    printf("MAIN RAN\n");
    return 0;
}
