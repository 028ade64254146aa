/* Deterministic input generator for check-real: writes SIZE bytes of
 * semi-compressible data (words from a small vocabulary, numbers, and some
 * random runs) to stdout. Usage: gen SIZE [SEED] */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static uint64_t s;
static uint32_t rnd(void)
{
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    return (uint32_t)(s >> 11);
}

int main(int argc, char **argv)
{
    static const char *words[] = {
        "lock", "unlock", "mutex", "thread", "deadlock", "order", "graph", "class",
        "held", "free", "malloc", "policy", "worker", "queue", "rcu", "reader",
        "writer", "grace", "period", "stack", "frame", "report", "summary", "the",
        "a", "of", "and", "to", "in", "is", "that", "for",
    };
    if (argc < 2) { fprintf(stderr, "usage: gen SIZE [SEED]\n"); return 2; }
    long long size = atoll(argv[1]);
    s = 0x9e3779b97f4a7c15ULL ^ (argc > 2 ? strtoull(argv[2], 0, 0) : 1);
    static char buf[1 << 16];
    long long done = 0;
    size_t n = 0;
    while (done < size) {
        uint32_t r = rnd();
        int k = r % 16;
        if (k < 11) {
            n += (size_t)snprintf(buf + n, 64, "%s ", words[(r >> 4) % 32]);
        } else if (k < 14) {
            n += (size_t)snprintf(buf + n, 64, "%u\n", (r >> 4) % 100000);
        } else {
            int len = 8 + (int)((r >> 4) % 24);
            for (int i = 0; i < len; i++) buf[n++] = (char)rnd();
        }
        if (n > sizeof buf - 128) {
            size_t w = n;
            if ((long long)w > size - done) w = (size_t)(size - done);
            fwrite(buf, 1, w, stdout);
            done += (long long)w;
            n = 0;
        }
    }
    return 0;
}
