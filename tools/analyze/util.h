/* Small helpers shared by the analyser's files. */
#ifndef AZ_UTIL_H
#define AZ_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Allocation that never returns NULL: the analyser cannot do anything
 * useful without memory, so it says so and exits with status 2. */
void *az_xmalloc(size_t n);
void *az_xcalloc(size_t n, size_t size);
void *az_xrealloc(void *p, size_t n);
char *az_xstrdup(const char *s);
char *az_xstrndup(const char *s, size_t n);

/* Parses hex digits (optionally after "0x"); returns the number of chars used, 0 if none. */
size_t az_parse_hex(const char *s, size_t n, uint64_t *out);
/* Parses decimal digits; returns the number of chars used, 0 if none. */
size_t az_parse_dec(const char *s, size_t n, uint64_t *out);
int az_starts_with(const char *s, size_t n, const char *prefix);
/* 64-bit FNV-1a, for hashing signatures and table keys. */
uint64_t az_fnv1a(uint64_t h, const void *data, size_t n);
#define AZ_FNV_INIT 0xcbf29ce484222325ULL

/* Escapers for the XML-based outputs (JUnit, HTML, SVG text). */
void az_xml_escape(FILE *out, const char *s);
#endif
