/* Symbolization in a helper process: a report would otherwise grow the
 * program's memory by what libdw loads (17 MB for a first report with
 * libc's debug info, 24 MB in knotd). The helper is `rtdd __symbolizer`
 * (tools/symbolizer.c), started at the first report as a clone child
 * invisible to the program's wait() and SIGCHLD, talking over a socket
 * pair; it is given each frame's module (path and load bias) and answers
 * with the same struct rt_symbol the in-process symbolizer makes. When it
 * cannot start or stops answering, the caller symbolizes in-process. */
#ifndef RTDD_SYMCLIENT_H
#define RTDD_SYMCLIENT_H
#include "report/modules.h"
#include "report/symbolize.h"
#include <stdint.h>

/* A forked child connects to its parent's helper when it first asks (the
 * helper listens on an abstract socket, its fd 3): children share the
 * helper and what it has loaded (a program forking 200 children starts one
 * helper), and a fork costs the helper nothing. */
enum { RT_SYMREQ_FUNCTION = 1, RT_SYMREQ_DATA = 2 };

/* The wire format: both ends are built from this header (the helper is
 * found next to librtdd.so); the hello's sizes catch any mismatch. */
#define RT_SYM_MAGIC 0x72747353u /* "rtsS" */
struct rt_symhello {
    uint32_t magic, req_size, resp_size, sym_size;
};
struct rt_symreq {
    uint32_t magic, op;
    uint64_t pc, base, lo; /* pc (a return address, or a data address), the module's bias and start */
    char path[256];
};
struct rt_symresp {
    uint32_t magic;
    int32_t ok;      /* 0: found, -1: not found */
    uint64_t offset; /* RT_SYMREQ_DATA: addr's offset into the variable */
    char name[128];  /* RT_SYMREQ_DATA: the variable's name */
    struct rt_symbol sym;
};

/* Before the symbolizer's lock (it may take the loader's): finds the
 * helper's binary once. 0 when a helper may be used. */
int rt_symclient_prepare(void);
/* Asks the helper; 0 with *ok its verdict (0 found, -1 not), or -1 when no
 * helper answered (none could start, or it stopped): symbolize in-process.
 * Called with the symbolizer's lock held. */
int rt_symclient_function(const struct rt_module *m, uintptr_t pc, struct rt_symbol *out, int *ok);
int rt_symclient_data(const struct rt_module *m, uintptr_t addr, char *name, unsigned cap, uintptr_t *offset,
                      int *ok);
/* In a forked child: the parent's connection is dropped; the child's own
 * is made by name at its first question. */
void rt_symclient_after_fork(void);
#endif
