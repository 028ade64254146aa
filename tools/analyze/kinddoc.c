#include "kinddoc.h"
#include "report/kinds.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGE (256 * 1024)

char *az_kind_help(int kind, const char *docs_dir, int *from_page)
{
    *from_page = 0;
    const struct rt_kind_info *k = &rt_kind_table[kind];
    if (docs_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.md", docs_dir, k->name);
        FILE *f = fopen(path, "r");
        if (f) {
            char *text = az_xmalloc(MAX_PAGE + 1);
            size_t n = fread(text, 1, MAX_PAGE, f);
            fclose(f);
            text[n] = 0;
            if (n && strlen(text) == n) { /* a text page, not binary junk */
                *from_page = 1;
                return text;
            }
            free(text);
        }
    }
    size_t cap = strlen(k->headline) + strlen(k->title) + strlen(k->name) + 256;
    char *text = az_xmalloc(cap);
    snprintf(text, cap,
             "# %s (%s)\n\nrtdd reports this %s with the headline:\n\n    %s\n\n"
             "See docs/kinds/%s.md for what it means and how to fix it.\n",
             k->name, rt_severity_name(k->severity), k->title, k->headline, k->name);
    return text;
}
