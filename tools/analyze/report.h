/* One parsed report, whatever it came from: an rtdd text report, an rtdd
 * JSON line or a kernel lockdep/-rt report. All strings live in the
 * report's arena and are valid UTF-8 without control characters. */
#ifndef AZ_REPORT_H
#define AZ_REPORT_H
#include "arena.h"
#include <stdint.h>

#define AZ_MAX_SECTIONS 24   /* sections kept per report; more are counted */
#define AZ_MAX_FRAMES 64     /* frames kept per stack; more are counted */
#define AZ_MAX_MODULES 64
#define AZ_MAX_CYCLE 32

enum az_origin { AZ_ORIGIN_TEXT, AZ_ORIGIN_JSON, AZ_ORIGIN_KERNEL };

struct az_frame {
    const char *function; /* NULL when not symbolized */
    const char *file;     /* NULL when unknown */
    unsigned line;
    const char *module;   /* module file name, NULL when unknown */
    uint64_t module_offset;
    uint64_t pc;
    unsigned char has_module_offset, inlined;
};

struct az_section {
    const char *title; /* NULL for frames before any title */
    struct az_frame *frames;
    unsigned nframes, capacity, dropped;
    unsigned char is_stack; /* has frames or "(stack unavailable)" */
};

struct az_module {
    const char *name, *build_id, *path; /* build_id NULL for "-" */
};

struct az_report {
    int kind;                /* enum rt_kind, -1 when unknown */
    enum az_origin origin;
    const char *headline;
    const char *comm, *time; /* NULL when absent */
    const char *location, *function; /* the SUMMARY's, NULL when absent */
    unsigned log_index;      /* index into the analysis' log names */
    unsigned long line;      /* line of the report's first line in its log */
    unsigned long end_line;
    struct az_section sections[AZ_MAX_SECTIONS];
    unsigned nsections, dropped_sections;
    unsigned char last_dropped; /* the last section was dropped: its frames are not another's */
    struct az_module modules[AZ_MAX_MODULES];
    unsigned nmodules;
    const char *cycle[AZ_MAX_CYCLE];
    unsigned ncycle;
    unsigned char runtime_truncated; /* the "[report truncated]" line */
    unsigned char confirm;   /* enum az_confirm (cycle.h): what rtdd run --confirm found */
    const char *confirm_detail; /* its first "confirm:" line, NULL when none */
    const char *corrupt;     /* why the report is truncated or corrupt, NULL if well formed */
    struct az_arena arena;
};

void az_report_init(struct az_report *r);
/* Empties the report for the next one, keeping its memory. */
void az_report_reset(struct az_report *r);
void az_report_destroy(struct az_report *r);
/* A deep copy in a fresh arena sized to fit. */
struct az_report *az_report_clone(const struct az_report *r);
void az_report_free(struct az_report *r);

/* Stores a copy of s[0..n) with invalid UTF-8 and control characters replaced by '?'. */
const char *az_report_str(struct az_report *r, const char *s, size_t n);
/* Demangles the report's C++ names in place (detect/demangle.c). */
void az_report_demangle(struct az_report *r);
/* Starts a new section; returns NULL (and counts it) when the report has too many. */
struct az_section *az_report_add_section(struct az_report *r, const char *title, size_t n);
/* The section frames go to: the last one, or a new untitled one; NULL when
 * the last one was dropped (its frames are counted nowhere, not misfiled). */
struct az_section *az_report_current_section(struct az_report *r);
/* Appends a frame (copied); counts it as dropped when the stack is full. */
struct az_frame *az_report_add_frame(struct az_report *r, struct az_section *s, const struct az_frame *f);
const struct az_module *az_report_module(const struct az_report *r, const char *name);
void az_report_set_corrupt(struct az_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Counts frames over all stacks. */
unsigned az_report_frame_count(const struct az_report *r);
#endif
