/* Allocation and locking in a library constructor that runs before the
 * runtime's own, and in its destructor after ours: no crash, no report. */
// expect: none
#include <stdio.h>
#include <string.h>
const char *early_value(void);

int main(void)
{
    return strcmp(early_value(), "early") == 0 ? 0 : 1;
}
