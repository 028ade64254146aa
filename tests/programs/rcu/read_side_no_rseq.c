/* read_side_direct.c where glibc registers no rseq area: record mode is
 * off (it reads the CPU from rseq) and the runtime's entry points record
 * every section, still without the library's slow functions. */
// expect: none
// env: GLIBC_TUNABLES=glibc.pthread.rseq=0
// no-output: read side went through
// log: 100000 RCU read sections
#include "read_side_direct.c"
