/* Writes a synthetic rtdd log for the analyser benchmark: SIZE_MB of text
 * (or JSON-line) reports of DISTINCT different bugs, each report with its
 * own pid, tid, addresses, times and line numbers (so nothing but the
 * signature makes them equal), and runtime chatter between reports.
 * usage: gen_log OUT SIZE_MB DISTINCT [text|json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int text_report(char *out, size_t cap, unsigned bug, unsigned long n)
{
    unsigned pid = 1000 + (unsigned)(next() % 60000), tid = pid + 1 + (unsigned)(next() % 8);
    unsigned long long base = 0x550000000000ULL + ((next() % 0xffffff) << 12), lock = base + 0x2e8 + (next() % 4096) * 16;
    return snprintf(out, cap,
        "------------[ cut here ]------------\n"
        "BUG: worker_%u/%u, active lock [0x%llx(0x%llx-0x%llx)] freed!\n"
        "CPU: %u PID: %u TID: %u Comm: worker_%u Time: 2026-12-03T08:%02lu:%02lu.%03luZ\n"
        "memory [0x%llx-0x%llx] freed by worker_%u/%u at:\n"
        " [<%016llx>] policy_gc_task_%u+0x18/0x1b (32) app+0x%x src/gc_%u.c:%u\n"
        " [<%016llx>] worker_thread_%u+0x62/0x78 (48) app+0x%x src/gc_%u.c:%u\n"
        " [<00007ff2358131f5>] start_thread+0x305/0x48e (160) libc.so.6+0x891f5 ./nptl/pthread_create.c:442\n"
        "the lock [0x%llx] (pthread_mutex_t) is held by policy_user/%u, taken at:\n"
        " [<%016llx>] policy_user_%u+0x24/0x49 (48) app+0x%x src/gc_%u.c:%u\n"
        " [<00007ff2358131f5>] start_thread+0x305/0x48e (160) libc.so.6+0x891f5 ./nptl/pthread_create.c:442\n"
        "the lock was initialized by thread %u at:\n"
        " [<%016llx>] policy_alloc+0x66/0x6c (48) app+0x124f src/gc.c:31\n"
        " [<%016llx>] main+0x49/0xcc (48) app+0x137a src/gc.c:70\n"
        "module: app build-id 72c93cb194d0fff976117e79e9b83e14c058fd9d base 0x%llx path /ci/build/app\n"
        "module: libc.so.6 build-id 93ac61ec5a8eb1396f9fbd350e3169a558528a40 base 0x7ff23578a000 path "
        "/lib/x86_64-linux-gnu/libc.so.6\n"
        "SUMMARY: rtdd: active-lock-freed gc_%u.c:%u in policy_gc_task_%u\n"
        "---[ end report ]---\n"
        "rtdd: summary: pid %u: 1 report (active-lock-freed: 1), 0 suppressed\n"
        "test %lu: ok\n",
        bug, tid, lock, lock - 0x48, lock + 0x30, (unsigned)(next() % 4), pid, tid, bug, (n / 60) % 60, n % 60,
        (unsigned long)(next() % 1000), lock - 0x48, lock + 0x30, bug, tid, base + 0x126d, bug, 0x1000 + bug * 0x40,
        bug, 30 + (unsigned)(next() % 20), base + 0x12d2, bug, 0x1100 + bug * 0x40, bug, 50 + (unsigned)(next() % 5),
        lock, pid + 9, base + 0x130c, bug, 0x1200 + bug * 0x40, bug, 58, pid, base + 0x124f, base + 0x137a, base, bug,
        31, bug, pid, n);
}

static int json_report(char *out, size_t cap, unsigned bug, unsigned long n)
{
    unsigned pid = 1000 + (unsigned)(next() % 60000), tid = pid + 1;
    unsigned long long base = 0x550000000000ULL + ((next() % 0xffffff) << 12);
    return snprintf(out, cap,
        "{\"rtdd\":1,\"kind\":\"active-lock-freed\",\"severity\":\"BUG\",\"headline\":\"BUG: worker/%u, active lock "
        "[0x%llx(0x%llx-0x%llx)] freed!\",\"pid\":%u,\"tid\":%u,\"cpu\":1,\"comm\":\"worker\",\"time\":\"2026-12-03T08:%02lu:"
        "%02lu.000Z\",\"sections\":[{\"title\":\"memory freed by worker/%u at:\",\"frames\":[{\"pc\":\"0x%llx\",\"function\":"
        "\"policy_gc_task_%u\",\"file\":\"src/gc_%u.c\",\"line\":%u,\"offset\":24,\"size\":27,\"frame_size\":32,\"module\":"
        "\"app\",\"module_offset\":\"0x126d\"},{\"pc\":\"0x%llx\",\"function\":\"worker_thread_%u\",\"file\":\"src/gc_%u.c\","
        "\"line\":51,\"module\":\"app\",\"module_offset\":\"0x12d2\"}]},{\"title\":\"the lock is held by policy_user/%u, "
        "taken at:\",\"frames\":[{\"pc\":\"0x%llx\",\"function\":\"policy_user_%u\",\"file\":\"src/gc_%u.c\",\"line\":58,"
        "\"module\":\"app\",\"module_offset\":\"0x130c\"}]}],\"modules\":[{\"name\":\"app\",\"build_id\":\"72c9\",\"base\":"
        "\"0x%llx\",\"path\":\"/ci/build/app\"}],\"location\":\"gc_%u.c:38\",\"function\":\"policy_gc_task_%u\"}\n"
        "test %lu: ok\n",
        tid, base + 0x2e8, base + 0x2a0, base + 0x318, pid, tid, (n / 60) % 60, n % 60, tid, base + 0x126d, bug, bug,
        30 + (unsigned)(next() % 20), base + 0x12d2, bug, bug, pid + 2, base + 0x130c, bug, bug, base, bug, bug, n);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUT SIZE_MB DISTINCT [text|json]\n", argv[0]);
        return 2;
    }
    FILE *out = strcmp(argv[1], "-") ? fopen(argv[1], "w") : stdout;
    if (!out) {
        perror(argv[1]);
        return 2;
    }
    unsigned long long want = strtoull(argv[2], NULL, 10) * 1000000ULL, wrote = 0;
    unsigned distinct = (unsigned)strtoul(argv[3], NULL, 10);
    int json = argc > 4 && !strcmp(argv[4], "json");
    if (!distinct)
        distinct = 1;
    static char buf[8192];
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    for (unsigned long n = 0; wrote < want; n++) {
        unsigned bug = (unsigned)(next() % distinct);
        int len = json ? json_report(buf, sizeof buf, bug, n) : text_report(buf, sizeof buf, bug, n);
        if (len <= 0 || (size_t)len >= sizeof buf || fwrite(buf, 1, (size_t)len, out) != (size_t)len) {
            perror("write");
            return 1;
        }
        wrote += (unsigned long long)len;
    }
    return fclose(out) == 0 ? 0 : 1;
}
