/* Suppressions: lines of KIND:PATTERN (KIND may be '*'); PATTERN is a glob
 * over the function, source file or module of any frame of a report. '#'
 * starts a comment. The same format serves runtime and analyser. */
#ifndef RTDD_SUPPRESS_H
#define RTDD_SUPPRESS_H
#include "core/rt_fmt.h" /* not core.h: tools/ builds this with clang, which refuses core.h's atomics */
#include <stddef.h>

struct rt_suppressions;
/* Parses text (not necessarily NUL-terminated). On error returns NULL and
 * writes "FILE:LINE: reason" into err. */
struct rt_suppressions *rt_suppressions_parse(const char *text, size_t len, const char *name, struct rt_buf *err);
/* Reads and parses a file; NULL with a message on error. */
struct rt_suppressions *rt_suppressions_load(const char *path, struct rt_buf *err);
/* 1 if some rule of kind (or '*') matches any of the strings. */
int rt_suppressions_match(const struct rt_suppressions *s, const char *kind, const char *const *strings,
                          unsigned nstrings);
unsigned rt_suppressions_count(const struct rt_suppressions *s);
/* Shell-style glob with '*' and '?'. */
int rt_glob_match(const char *pattern, const char *s);
#endif
