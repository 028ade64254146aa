/* rseq_own_area.c where glibc registers no rseq area, so that the runtime
 * registers its own and the program's registrations find the thread taken
 * unless the runtime makes way. */
// expect: none
// env: GLIBC_TUNABLES=glibc.pthread.rseq=0
// no-output: FAIL
#include "rseq_own_area.c"
