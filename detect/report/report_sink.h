/* Where a rendered report goes: a buffer that, when a report is too long
 * for it, is written out as a piece of complete lines and begun again
 * (report-format.md, "Long reports"). The pieces of one report follow one
 * another in the log: the write lock is held from the first to the last. */
#ifndef RTDD_REPORT_SINK_H
#define RTDD_REPORT_SINK_H
#include "core/core.h"
#include <stddef.h>

/* Room kept free before a line or frame is rendered: more than the longest
 * (a frame with its inlined callees, in JSON). Past it, a piece is written. */
#define RT_SINK_RESERVE (32 * 1024)

struct rt_sink {
    struct rt_buf b;
    int json;
    int locked;         /* holds the write lock (after the first piece) */
    unsigned pieces;    /* written so far */
    char id[32];        /* PID.N, the same in every piece */
    int in_frames;      /* JSON: inside a section's "frames" array */
    int after_sections; /* JSON: the "sections" array is closed (modules, cycle follow) */
    int first_section;  /* JSON: the next section is the first of its piece */
    int first_frame;    /* JSON: the next frame is the first of its array */
    size_t mark;        /* where the line or frame being rendered began */
    unsigned cut;       /* lines or frames too long for the buffer, left out */
};

void rt_sink_begin(struct rt_sink *s, char *buf, size_t cap, int json);
/* Before a line or a frame: writes out the report so far as a piece if the
 * buffer may not hold it; the renderer goes on in the emptied buffer. */
void rt_sink_room(struct rt_sink *s);
/* After the line or frame: 1 if it did not fit even in an emptied buffer,
 * and was taken out again (counted in cut, which the report then says). */
int rt_sink_done(struct rt_sink *s);
/* Writes the last piece (or the whole report) and lets the next one in. */
void rt_sink_finish(struct rt_sink *s);
/* One line outside reports (the exit summary), never inside one. */
void rt_sink_write_whole(const char *data, size_t len);
void rt_sink_after_fork(void);
#endif
