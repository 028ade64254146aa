/* read_side_direct.c where glibc registers no rseq area: the runtime
 * registers its own per thread to read the CPU from (detect/core/cpu.h), so
 * record mode stays on, as fast as with glibc's. */
// expect: none
// env: GLIBC_TUNABLES=glibc.pthread.rseq=0
// no-output: read side went through
// log: 100000 RCU read sections
#include "read_side_direct.c"
