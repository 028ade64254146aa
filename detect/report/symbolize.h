/* In-process symbolization with elfutils libdw, at report time only.
 * libdw is not thread-safe and allocates: calls are serialized, and the
 * caller must have the runtime's reentrancy guard set. */
#ifndef RTDD_SYMBOLIZE_H
#define RTDD_SYMBOLIZE_H
#include <stdint.h>

#define RT_SYM_INLINE_MAX 4

struct rt_source_loc {
    char function[128]; /* "" when unknown */
    char file[192];     /* "" when unknown */
    int line;
};

struct rt_symbol {
    struct rt_source_loc loc;          /* the ELF function, file:line of the pc */
    uintptr_t offset, size;            /* pc - function start, function size */
    int ninline;                       /* inlined callees, innermost first */
    struct rt_source_loc inl[RT_SYM_INLINE_MAX];
};

/* Symbolizes a return address (looks up pc-1 so the call's line is found).
 * Returns 0 when at least the function is known, -1 otherwise. */
int rt_symbolize(uintptr_t pc, struct rt_symbol *out);
/* The location a one-line site (a SUMMARY, "taken at") names: the
 * innermost one outside rtdd's public headers, whose inline functions
 * (librtdd_rcu's read side) stand for the program's call, and outside the
 * system's headers when there is one. */
const struct rt_source_loc *rt_symbol_site(const struct rt_symbol *sym);
/* Is this frame the system's rather than the program's: in the C or C++
 * runtime's module (module: its file name, or NULL), or, symbolized
 * (sym, or NULL), at a site in the system's or the compiler's headers
 * (std::mutex::lock, gthr-default.h)? One-line sites pass over such
 * frames to the program's own. C++ names are demangled. */
int rt_symbol_in_system_code(const struct rt_symbol *sym, const char *module);
/* The data symbol (global or static variable) containing addr: its name
 * and addr's offset into it. 0 on success. */
int rt_symbolize_data(uintptr_t addr, char *name, unsigned cap, uintptr_t *offset);
/* In a forked child: drop libdw's state (another thread may have been in it). */
void rt_symbolize_after_fork(void);
/* Around fork (interpose/init.c): held by the forking thread. */
void rt_symbolize_fork_prepare(void);
void rt_symbolize_fork_parent(void);
#endif
