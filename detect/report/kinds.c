#include "report/kinds.h"
#include <string.h>

const struct rt_kind_info rt_kind_table[RT_KIND_COUNT] = {
#define RT_KIND(e, name, sev, headline, title) { name, RT_SEV_##sev, headline, title },
#include "report/kinds.def"
#undef RT_KIND
};

const char *rt_severity_name(enum rt_severity s)
{
    return s == RT_SEV_BUG ? "BUG" : s == RT_SEV_WARNING ? "WARNING" : "INFO";
}

int rt_kind_lookup(const char *name, size_t len)
{
    for (int i = 0; i < RT_KIND_COUNT; i++)
        if (strlen(rt_kind_table[i].name) == len && !memcmp(rt_kind_table[i].name, name, len))
            return i;
    return -1;
}
