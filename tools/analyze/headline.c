#include "headline.h"
#include "report/kinds.h"
#include "report/suppress.h"
#include <pthread.h>
#include <string.h>

/* Words of the documented headlines that stand for run-time values. */
static const char *const placeholders[] = {"COMM", "TID", "LOCK", "START", "END", "N", "A", "B"};

/* The kernel's wording of the same bugs (kernel/locking/lockdep.c and the
 * -rt patch's rtmutex-debug.c), and the runtime's own singular forms of a
 * headline, as globs. */
static const struct {
    const char *glob;
    int kind;
} kernel_aliases[] = {
    {"WARNING: held lock freed!", RT_KIND_ACTIVE_LOCK_FREED},
    {"BUG: held lock freed!", RT_KIND_ACTIVE_LOCK_FREED},
    {"BUG: */*, lock held at task exit time!", RT_KIND_LOCK_HELD_AT_EXIT},
    {"WARNING: lock held when returning to user space!", RT_KIND_LOCK_HELD_AT_EXIT},
    {"WARNING: thread */* blocked for more than * seconds", RT_KIND_BLOCKED_TOO_LONG},
    {"BUG: deadlock detected, 1 thread blocked in a cycle", RT_KIND_DEADLOCK},
    {"BUG: deadlock detected, 1 thread blocked on a lock whose holder does not exist", RT_KIND_DEADLOCK},
    {"BUG: deadlock detected, all * threads blocked, none can wake another", RT_KIND_DEADLOCK},
    {"[ BUG: circular locking deadlock detected! ]", RT_KIND_DEADLOCK},
    {"BUG: circular locking deadlock detected!", RT_KIND_DEADLOCK},
    {"INFO: rcu_* detected stall*", RT_KIND_RCU_STALL},
    {"INFO: rcu_* self-detected stall*", RT_KIND_RCU_STALL},
};

static char globs[RT_KIND_COUNT][160];
static pthread_once_t globs_once = PTHREAD_ONCE_INIT;

static int is_placeholder(const char *w, size_t n)
{
    for (size_t i = 0; i < sizeof placeholders / sizeof *placeholders; i++)
        if (strlen(placeholders[i]) == n && !memcmp(placeholders[i], w, n))
            return 1;
    return 0;
}

static void build_globs(void)
{
    for (int k = 0; k < RT_KIND_COUNT; k++) {
        const char *h = rt_kind_table[k].headline;
        char *o = globs[k], *end = globs[k] + sizeof globs[k] - 1;
        while (*h && o < end) {
            if (*h >= 'A' && *h <= 'Z') {
                size_t n = 0;
                while (h[n] >= 'A' && h[n] <= 'Z')
                    n++;
                int alone = !((h[n] >= 'a' && h[n] <= 'z') || (h > rt_kind_table[k].headline &&
                                                                ((h[-1] >= 'a' && h[-1] <= 'z'))));
                if (alone && is_placeholder(h, n)) {
                    *o++ = '*';
                } else {
                    size_t room = (size_t)(end - o);
                    memcpy(o, h, n < room ? n : room);
                    o += n < room ? n : room;
                }
                h += n;
            } else {
                *o++ = *h++;
            }
        }
        *o = 0;
    }
}

int az_headline_candidate(const char *line, size_t len)
{
    while (len && (*line == ' ' || *line == '\t'))
        line++, len--;
    return (len >= 5 && !memcmp(line, "BUG: ", 5)) || (len >= 9 && !memcmp(line, "WARNING: ", 9)) ||
           (len >= 6 && !memcmp(line, "INFO: ", 6)) || (len >= 7 && !memcmp(line, "[ BUG: ", 7));
}

int az_headline_kind(const char *line, size_t len)
{
    if (!az_headline_candidate(line, len))
        return -1;
    while (len && (*line == ' ' || *line == '\t'))
        line++, len--;
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
        len--;
    char buf[512];
    if (len >= sizeof buf)
        return -1; /* no headline is that long */
    memcpy(buf, line, len);
    buf[len] = 0;
    pthread_once(&globs_once, build_globs);
    for (int k = 0; k < RT_KIND_COUNT; k++)
        if (rt_glob_match(globs[k], buf))
            return k;
    for (size_t i = 0; i < sizeof kernel_aliases / sizeof *kernel_aliases; i++)
        if (rt_glob_match(kernel_aliases[i].glob, buf))
            return kernel_aliases[i].kind;
    return -1;
}
