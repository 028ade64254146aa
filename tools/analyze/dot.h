/* Graphviz pieces shared by --dot and the HTML page's SVG drawings. */
#ifndef AZ_DOT_H
#define AZ_DOT_H
#include "analysis.h"
#include <stdio.h>

void az_dot_header(FILE *out, const char *name);
/* The edges of one finding's cycle, each line prefixed by indent. */
void az_dot_cycle_edges(FILE *out, const struct az_finding *f, const char *indent);
/* Runs `dot -Tsvg` on the finding's cycle; returns malloc'ed SVG text or
 * NULL when Graphviz is not installed or failed. */
char *az_dot_render_svg(const struct az_finding *f);
#endif
