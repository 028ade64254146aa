/* The stable identity of a report: its kind plus the normalized top
 * frames of its primary stack (and of its second stack for two-stack
 * kinds; for lock cycles, the set of the stacks' guilty functions plus
 * the named locks of the cycle, the same whichever thread reported it). Runtime, wrapper and libc frames are skipped and
 * compiler suffixes (.isra.N, .constprop.N, .part.N, .cold, ...) and
 * symbol versions (@@GLIBC_2.34) dropped; addresses, pids, offsets and
 * line numbers never count. */
#ifndef AZ_SIGNATURE_H
#define AZ_SIGNATURE_H
#include "report.h"
#include <stddef.h>

#define AZ_SIG_FRAMES 3   /* frames per stack in the signature */
#define AZ_SIG_HEX 16     /* hex digits of a signature */

struct az_signature {
    char hex[AZ_SIG_HEX + 1];
    char title[256];            /* "active lock freed in policy_gc_task"; for cycles, the
                                   first of cycle_functions */
    char frames[2][AZ_SIG_FRAMES][128]; /* the normalized frames that went in */
    unsigned nframes[2];
    /* Cycle kinds: the guilty function of every stack, sorted and distinct,
     * so that each thread of the cycle reports the same signature. */
    char cycle_functions[AZ_MAX_SECTIONS][128];
    unsigned ncycle_functions;
    int primary, secondary;     /* section indices of the stacks used, -1 if none */
    int guilty_frame;           /* index in the primary section of the first kept frame, -1 */
};

/* Writes the normalized form of a function name into out. */
void az_normalize_function(const char *name, char *out, size_t cap);
/* 1 if the frame is the runtime's, a wrapper's (malloc, pthread_mutex_lock, ...)
 * or libc's, and so never the guilty one. */
int az_frame_is_boilerplate(const struct az_frame *f, int kernel);
void az_signature_compute(const struct az_report *r, struct az_signature *sig);
#endif
