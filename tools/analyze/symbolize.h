/* Offline symbolization with elfutils libdwfl from each frame's
 * MODULE+0xOFFSET and the report's module lines (build-id, path). The
 * ELF file is found by: the module's path when its build-id still
 * matches, then DIR/.build-id/xx/yyyy(.debug) and DIR/NAME under each
 * --debug-dir and /usr/lib/debug. Separate debug files are found by
 * libdwfl's standard search over the same directories. Each module is
 * opened once and its lookups are cached. No network: debuginfod is
 * used only when asked for. */
#ifndef AZ_SYMBOLIZE_H
#define AZ_SYMBOLIZE_H
#include "report.h"

struct az_symbolizer;
struct az_symbolizer *az_symbolizer_new(const char *const *debug_dirs, unsigned ndirs, int use_debuginfod);
void az_symbolizer_free(struct az_symbolizer *s);
/* Resolves the frames that have no function name, expanding inlined
 * callees into frames of their own as the runtime does. */
void az_symbolize_report(struct az_symbolizer *s, struct az_report *r);
/* Counters for --verbose and tests. */
struct az_symbolizer_stats {
    unsigned modules_opened, modules_missing;
    unsigned long frames_resolved, frames_unresolved, cache_hits;
};
void az_symbolizer_stats(const struct az_symbolizer *s, struct az_symbolizer_stats *out);
#endif
