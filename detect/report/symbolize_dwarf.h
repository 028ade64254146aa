/* The DWARF half of symbolization (detect/report/symbolize_dwarf.c). */
#ifndef RTDD_SYMBOLIZE_DWARF_H
#define RTDD_SYMBOLIZE_DWARF_H
#include "report/symbolize.h"
#include <elfutils/libdwfl.h>

/* pc's function, location and inlined callees in mod; 0, or -1 unknown. */
int rt_dwarf_function(Dwfl_Module *mod, uintptr_t pc, struct rt_symbol *out);
/* The variable of mod that contains addr: its name and addr's offset. */
int rt_dwarf_data(Dwfl_Module *mod, uintptr_t addr, char *name, unsigned cap, uintptr_t *offset);
/* Copies src (NULL: "") into dst, cut to cap. */
void rt_sym_copy_str(char *dst, size_t cap, const char *src);
#endif
