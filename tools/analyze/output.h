/* The analyser's outputs, one file each: text (for people), JSON (for
 * scripts and as a later --baseline), SARIF 2.1.0 (code scanning), JUnit
 * XML (CI test reports), HTML (one self-contained page) and Graphviz dot
 * (the lock-order cycles). Each returns 0, or -1 when writing failed. */
#ifndef AZ_OUTPUT_H
#define AZ_OUTPUT_H
#include "analysis.h"
#include <stdio.h>

struct az_output_context {
    const char *version;    /* rtdd's version */
    const char *docs_dir;   /* where docs/kinds/KIND.md pages are, or NULL */
};

int az_write_text(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);
int az_write_json(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);
int az_write_sarif(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);
int az_write_junit(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);
int az_write_html(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);
int az_write_dot(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx);

/* Shared by the outputs. */
const char *az_status_name(enum az_status st);
/* "a.log:12" for a place in the input. */
void az_seen_format(const struct az_analysis *a, const struct az_seen *s, char *out, size_t cap);
/* A frame as one line: "policy_gc_task (inlined) examples/xfrm_gc.c:39 [xfrm_gc+0x125e]". */
void az_frame_format(const struct az_frame *f, char *out, size_t cap);
/* The finding's text for CI tools: the example report's stacks, as text. */
char *az_finding_describe(const struct az_analysis *a, const struct az_finding *f);
/* 1 if the finding's kind draws a lock cycle and its example has one. */
int az_finding_has_cycle(const struct az_finding *f);
#endif
