/* The lines of Linux kernel reports: dmesg/syslog prefixes and the
 * kernel's frame shapes (" [<c0103e31>] dump_stack+0x1e/0x20 (20)",
 * "  lock_acquire+0xd3/0x2f0", " func+0x1d/0x40 [module]"). */
#ifndef AZ_PARSE_KERNEL_H
#define AZ_PARSE_KERNEL_H
#include "report.h"
#include <stddef.h>

/* How many leading bytes are a log-level "<4>", a dmesg timestamp
 * "[  12.345678]", a caller id "[T123]"/"[C1]" or a syslog prefix ending
 * in "kernel: ". */
size_t az_log_prefix_len(const char *s, size_t n);
/* 1: a frame, filled in; 0: not a frame; -1: an unreliable "? " frame,
 * which the kernel prints but does not vouch for. */
int az_kernel_frame(struct az_report *r, const char *s, size_t n, struct az_frame *f);
#endif
