/* read_side_no_rseq.c with register_rseq=0: the runtime registers no rseq
 * area of its own either, so record mode is off and the runtime's entry
 * points record every section (the CPU from sched_getcpu), still without
 * the library's slow functions. */
// expect: none
// env: GLIBC_TUNABLES=glibc.pthread.rseq=0
// options: register_rseq=0
// no-output: read side went through
// log: 100000 RCU read sections
#include "read_side_direct.c"
