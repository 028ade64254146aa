/* The lines of rtdd text reports (docs/report-format.md, "Text reports"). */
#ifndef AZ_PARSE_TEXT_H
#define AZ_PARSE_TEXT_H
#include "report.h"
#include <stddef.h>

#define AZ_BEGIN_LINE "------------[ cut here ]------------"
#define AZ_END_LINE "---[ end report ]---"

/* A frame-line " [<ADDR>] SYMBOL MODULE+0xOFF [FILE:LINE]". Returns 0 and
 * fills f (strings in r's arena) or -1 when the line is malformed. */
int az_text_frame(struct az_report *r, const char *s, size_t n, struct az_frame *f);
/* "module: NAME build-id HEX|- base 0xHEX path PATH"; 0 or -1. */
int az_text_module(struct az_report *r, const char *s, size_t n);
/* "CPU: N PID: N TID: N Comm: NAME Time: ISO8601"; 0 or -1. */
int az_text_context(struct az_report *r, const char *s, size_t n);
/* "SUMMARY: rtdd: KIND LOCATION in FUNCTION"; 0 or -1 (unknown kind or shape). */
int az_text_summary(struct az_report *r, const char *s, size_t n);
/* "cycle: A -> B -> ... -> A"; 0 or -1. */
int az_text_cycle(struct az_report *r, const char *s, size_t n);
/* Splits "FILE:LINE" at the last colon followed only by digits. */
void az_split_file_line(struct az_report *r, const char *s, size_t n, struct az_frame *f);
#endif
