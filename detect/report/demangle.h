/* C++ names as people write them: _ZNSt5mutex4lockEv -> std::mutex::lock().
 * The demangler is the C++ runtime's own (__cxa_demangle), found where the
 * process already has libstdc++ — as every C++ program does — so the
 * runtime never loads it into a C program; the analyser may load it. */
#ifndef RTDD_DEMANGLE_H
#define RTDD_DEMANGLE_H
#include <stddef.h>

/* Writes the demangled name of a mangled C++ symbol (with a leading "_Z")
 * into out, truncated to cap; returns 1. Returns 0, leaving out alone, for
 * other names or when no demangler is at hand. It allocates: report time
 * only, with the runtime's reentrancy guard raised. */
int rt_demangle(const char *name, char *out, size_t cap);
/* Lets rt_demangle load libstdc++ when the process has none (the analyser). */
void rt_demangle_may_load(void);
#endif
