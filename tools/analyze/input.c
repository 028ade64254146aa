#include "input.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_SIZE (1u << 20)

int az_read_log(const char *path, struct az_parser *p, unsigned log_index, struct az_input_stats *stats,
                char *err, size_t errlen)
{
    int is_stdin = !strcmp(path, "-");
    int fd = is_stdin ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot read '%s': it is a directory", path);
        close(fd);
        return -1;
    }
    /* gzdopen reads plain files transparently, so one path serves both. */
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        snprintf(err, errlen, "cannot read '%s': out of memory", path);
        close(fd);
        return -1;
    }
    gzbuffer(gz, 256 * 1024);
    /* buf holds the unfinished line followed by newly read bytes. */
    char *buf = az_xmalloc(AZ_MAX_LINE + READ_SIZE);
    size_t have = 0;
    unsigned long lineno = 0;
    int overlong = 0; /* skipping the rest of a line that was too long */
    int status = 0;
    az_parser_begin_log(p, log_index);
    for (;;) {
        int got = gzread(gz, buf + have, READ_SIZE);
        if (got < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            snprintf(err, errlen, "error reading '%s' after line %lu: %s", path, lineno,
                     zerr == Z_ERRNO ? strerror(errno) : msg);
            status = -1;
            break;
        }
        if (got == 0)
            break;
        stats->bytes += (unsigned long long)got;
        size_t end = have + (size_t)got, pos = 0;
        for (;;) {
            char *nl = memchr(buf + pos, '\n', end - pos);
            if (!nl)
                break;
            size_t len = (size_t)(nl - buf - pos);
            if (overlong) {
                overlong = 0; /* the tail of a line already reported */
            } else {
                lineno++;
                az_parser_line(p, buf + pos, len, lineno, 0);
            }
            pos += len + 1;
        }
        have = end - pos;
        if (have >= AZ_MAX_LINE) {
            /* A line longer than we keep: hand over its start, skip the rest. */
            if (!overlong) {
                lineno++;
                az_parser_line(p, buf + pos, AZ_MAX_LINE, lineno, 1);
                overlong = 1;
            }
            have = 0;
        } else if (have && pos) {
            memmove(buf, buf + pos, have);
        }
    }
    if (status == 0) {
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        if (zerr != Z_OK && zerr != Z_STREAM_END) {
            snprintf(err, errlen, "error reading '%s' after line %lu: %s", path, lineno, msg);
            status = -1;
        }
    }
    if (have && !overlong) {
        lineno++;
        az_parser_line(p, buf, have, lineno, 0);
    }
    az_parser_end_log(p, lineno);
    stats->lines += lineno;
    free(buf);
    gzclose(gz);
    return status;
}
