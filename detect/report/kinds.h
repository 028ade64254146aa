/* Report kinds and severities (table in kinds.def). */
#ifndef RTDD_KINDS_H
#define RTDD_KINDS_H
#include <stddef.h>

enum rt_severity { RT_SEV_BUG, RT_SEV_WARNING, RT_SEV_INFO };
enum rt_kind {
#define RT_KIND(e, name, sev, headline, title) RT_KIND_##e,
#include "report/kinds.def"
#undef RT_KIND
    RT_KIND_COUNT
};
struct rt_kind_info {
    const char *name;
    enum rt_severity severity;
    const char *headline; /* the documented shape of the first line */
    const char *title;    /* short title used for findings: "<title> in FUNCTION" */
};
extern const struct rt_kind_info rt_kind_table[RT_KIND_COUNT];
const char *rt_severity_name(enum rt_severity s);
/* Kind by name (length-delimited), or -1. */
int rt_kind_lookup(const char *name, size_t len);
#endif
