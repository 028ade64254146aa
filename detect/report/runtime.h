/* The runtime's configuration: options, log, suppressions. */
#ifndef RTDD_RUNTIME_H
#define RTDD_RUNTIME_H
#include "core/core.h"
#include "report/suppress.h"

extern struct rt_options rt_opt;
extern const struct rt_suppressions *rt_supp;

/* Parses the options text (RTDD_OPTIONS), opens the log, loads the
 * suppressions. On a bad option or file returns -1 with a message in err. */
int rt_runtime_configure(const char *options_text, struct rt_buf *err);
#endif
