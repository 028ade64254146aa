/* Draws one finding's lock cycle as SVG with Graphviz's `dot`. */
#include "dot.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *az_dot_render_svg(const struct az_finding *f)
{
    char path[] = "/tmp/rtdd-analyze-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *in = fdopen(fd, "w");
    if (!in) {
        close(fd);
        unlink(path);
        return NULL;
    }
    az_dot_header(in, f->sig.title);
    az_dot_cycle_edges(in, f, "  ");
    fputs("}\n", in);
    fclose(in);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    char *svg = NULL;
    size_t len = 0, cap = 0;
    if (p) {
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
            if (len + n + 1 > cap) {
                cap = (len + n + 1) * 2;
                svg = az_xrealloc(svg, cap);
            }
            memcpy(svg + len, buf, n);
            len += n;
        }
        int status = pclose(p);
        if (status != 0 || !svg) {
            free(svg);
            svg = NULL;
        } else {
            svg[len] = 0;
        }
    }
    unlink(path);
    /* Inline SVG starts at <svg: drop the XML prolog and doctype. */
    char *start = svg ? strstr(svg, "<svg") : NULL;
    if (!start) {
        free(svg);
        return NULL;
    }
    memmove(svg, start, strlen(start) + 1);
    return svg;
}
