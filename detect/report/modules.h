/* The loaded modules (executable and shared objects) with their build-ids,
 * so that a pc can be printed as MODULE+OFFSET and symbolized offline. */
#ifndef RTDD_MODULES_H
#define RTDD_MODULES_H
#include <stdint.h>

struct rt_module {
    uintptr_t base;      /* load bias: OFFSET = pc - base is the ELF address */
    uintptr_t lo, hi;    /* extent of the PT_LOAD segments */
    char path[256];
    char name[64];       /* basename of path */
    char build_id[41];   /* hex, "" when the module has none */
};

/* Copies the module containing pc into *out; 0 on success, -1 if none.
 * Re-reads the module list when pc is in no known module and the set of
 * loaded objects changed. Takes the loader lock: slow paths only. */
int rt_module_find(uintptr_t pc, struct rt_module *out);
/* In a forked child: the module-set lock may have been held by a vanished thread. */
void rt_modules_after_fork(void);
#endif
