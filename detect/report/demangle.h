/* C++ names as people write them: _ZNSt5mutex4lockEv -> std::mutex::lock().
 * rtdd's own Itanium C++ ABI demangler (detect/report/demangle.c): it needs no
 * libstdc++ in the process (a C++ program built with --as-needed may have
 * none), allocates nothing and is bounded in time and stack, so the runtime
 * and `rtdd analyze` name C++ functions the same way everywhere. */
#ifndef RTDD_DEMANGLE_H
#define RTDD_DEMANGLE_H
#include <stddef.h>

/* Writes the demangled name of a mangled C++ symbol (with a leading "_Z",
 * and maybe GCC's clone suffixes ".isra.0" and a symbol version "@@V")
 * into out, truncated to cap; returns 1. Returns 0 (out then holds nothing
 * useful) for
 * other names and for names it cannot parse: the caller keeps the mangled
 * name then. Thread-safe. */
int rt_demangle(const char *name, char *out, size_t cap);
#endif
