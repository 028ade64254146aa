/* Reads one log (a file, gzip-compressed or not, or "-" for standard
 * input) and feeds its lines to the parser. Lines longer than
 * AZ_MAX_LINE are cut and flagged, so no input makes memory grow. */
#ifndef AZ_INPUT_H
#define AZ_INPUT_H
#include "parser.h"
#include <stddef.h>

#define AZ_MAX_LINE (1u << 20)

struct az_input_stats {
    unsigned long long bytes; /* uncompressed bytes read */
    unsigned long lines;
};

/* 0 when the whole log was read; -1 when it could not be opened or read
 * (err says why; lines read before a read error were parsed). */
int az_read_log(const char *path, struct az_parser *p, unsigned log_index, struct az_input_stats *stats,
                char *err, size_t errlen);
#endif
