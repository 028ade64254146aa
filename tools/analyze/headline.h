/* Recognises a report's kind from its headline, with the shapes of
 * detect/report/kinds.def (placeholders such as COMM/TID become wildcards) plus
 * the kernel's own lockdep and -rt headlines for the same bugs. */
#ifndef AZ_HEADLINE_H
#define AZ_HEADLINE_H
#include <stddef.h>

/* The kind (enum rt_kind) whose headline the line is, or -1. Leading and
 * trailing blanks are ignored. */
int az_headline_kind(const char *line, size_t len);
/* 1 if the line could start a kernel report (cheap pre-filter). */
int az_headline_candidate(const char *line, size_t len);
#endif
