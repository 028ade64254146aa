/* gen MEGABYTES: writes MEGABYTES MiB of deterministic, text-like,
 * moderately compressible data (log lines of words and numbers) to stdout.
 * The same size always gives the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static const char *words[] = {
    "lock", "unlock", "thread", "mutex", "grace", "period", "reader", "writer", "policy", "xfrm",
    "worker", "queue", "flush", "commit", "journal", "inode", "dentry", "page", "cache", "slab",
    "request", "response", "timeout", "retry", "socket", "buffer", "packet", "route", "table", "index",
    "error", "warning", "info", "debug", "started", "stopped", "pending", "done", "failed", "ok",
};

int main(int argc, char **argv)
{
    if (argc != 2 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: gen MEGABYTES\n");
        return 2;
    }
    long long want = atoll(argv[1]) * 1024 * 1024, out = 0;
    static char line[512];
    const size_t nwords = sizeof words / sizeof words[0];
    while (out < want) {
        uint64_t r = next();
        int len = snprintf(line, sizeof line, "%010llu [%5u] %s:", (unsigned long long)(out / 7),
                           (unsigned)(r % 65536), words[(r >> 16) % nwords]);
        int n = 4 + (int)((r >> 24) % 12);
        for (int i = 0; i < n && len < 400; i++) {
            uint64_t s = next();
            if (s % 5 == 0)
                len += snprintf(line + len, sizeof line - len, " %llx", (unsigned long long)(s >> 40));
            else
                len += snprintf(line + len, sizeof line - len, " %s", words[(s >> 8) % nwords]);
        }
        line[len++] = '\n';
        if (out + len > want)
            len = (int)(want - out);
        fwrite(line, 1, (size_t)len, stdout);
        out += len;
    }
    return 0;
}
