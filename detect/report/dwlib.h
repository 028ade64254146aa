/* libdw, opened on the first symbolization rather than linked: a process
 * that never reports pays nothing for it (elfutils and its compression
 * libraries cost about 0.2 ms of loading per exec'd process). */
#ifndef RTDD_DWLIB_H
#define RTDD_DWLIB_H
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#define RT_DWLIB_FUNCS(X) \
    X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_diename) X(dwarf_filesrc) X(dwarf_formref_die) \
    X(dwarf_formstring) X(dwarf_formudata) X(dwarf_getscopes) X(dwarf_getscopes_die) X(dwarf_getsrcfiles) \
    X(dwarf_tag) X(dwfl_addrmodule) X(dwfl_begin) X(dwfl_build_id_find_elf) X(dwfl_end) X(dwfl_lineinfo) \
    X(dwfl_linux_proc_find_elf) X(dwfl_linux_proc_report) X(dwfl_module_addrdie) X(dwfl_module_addrinfo) \
    X(dwfl_module_getsrc) X(dwfl_module_info) X(dwfl_offline_section_address) X(dwfl_report_begin) \
    X(dwfl_report_begin_add) X(dwfl_report_elf) X(dwfl_report_end) X(dwfl_standard_find_debuginfo)

#define RT_DWLIB_FIELD(name) __typeof__(&name) name;
struct rt_dwlib {
    RT_DWLIB_FUNCS(RT_DWLIB_FIELD)
};
#undef RT_DWLIB_FIELD

/* Filled by rt_dwlib_load; read only after it returned 0. */
extern struct rt_dwlib rt_dw;
/* 0 once libdw is open (the first call opens it: may take the loader's
 * lock, so callers hold none of their own); -1 when it cannot be. */
int rt_dwlib_load(void);
#endif
