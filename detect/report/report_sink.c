#include "report/report_sink.h"
#include "report/log.h"
#include "core/core.h"
#include <unistd.h>

/* Serializes the writes of reports. Held from the first piece of a long
 * report to its last (so that no other report of the process comes in
 * between) while the rest is symbolized: it is taken with no other internal
 * lock held, and nothing that waits for it runs under another. */
static rt_spin_t write_lock = RT_SPIN_INIT;
static _Atomic unsigned pieced_reports; /* numbers the reports written in pieces */

void rt_sink_begin(struct rt_sink *s, char *buf, size_t cap, int json)
{
    *s = (struct rt_sink){ .json = json };
    rt_buf_init(&s->b, buf, cap);
}

static void write_out(struct rt_sink *s)
{
    if (!s->locked)
        rt_spin_lock(&write_lock);
    s->locked = 1;
    rt_log_write(s->b.data, s->b.len);
}

void rt_sink_room(struct rt_sink *s)
{
    s->mark = s->b.len;
    if (s->b.len + RT_SINK_RESERVE < s->b.cap)
        return;
    if (!s->pieces) {
        struct rt_buf idb;
        rt_buf_init(&idb, s->id, sizeof s->id);
        rt_buf_printf(&idb, "%d.%u", getpid(), __atomic_add_fetch(&pieced_reports, 1, __ATOMIC_RELAXED));
    }
    /* The piece says that the report continues; the next one, whose. */
    if (s->json)
        rt_buf_printf(&s->b, "%s,\"continues\":\"%s\"}\n", s->after_sections ? "" : s->in_frames ? "]}]" : "]",
                      s->id);
    else
        rt_buf_printf(&s->b, "[report %s continues]\n", s->id);
    write_out(s);
    s->pieces++;
    s->b.len = 0;
    s->b.data[0] = 0;
    if (s->json) {
        /* A stack cut between two frames goes on in a section of its own. */
        rt_buf_printf(&s->b, "{\"rtdd\":1,\"continued\":\"%s\",\"sections\":[%s", s->id,
                      s->after_sections ? "]" : s->in_frames ? "{\"more_frames\":true,\"frames\":[" : "");
        s->first_section = !s->in_frames;
        s->first_frame = 1;
    } else {
        rt_buf_printf(&s->b, "[report %s continued]\n", s->id);
    }
    s->mark = s->b.len;
}

int rt_sink_done(struct rt_sink *s)
{
    if (!s->b.truncated)
        return 0;
    /* Longer than RT_SINK_RESERVE: no report makes such a line, but if one
     * did, it is left out whole and the report says so (not a cut line). */
    s->b.len = s->mark;
    s->b.data[s->b.len] = 0;
    s->b.truncated = 0;
    s->cut++;
    return 1;
}

void rt_sink_finish(struct rt_sink *s)
{
    write_out(s);
    s->locked = 0;
    rt_spin_unlock(&write_lock);
}

void rt_sink_write_whole(const char *data, size_t len)
{
    rt_spin_lock(&write_lock);
    rt_log_write(data, len);
    rt_spin_unlock(&write_lock);
}

void rt_sink_after_fork(void)
{
    rt_spin_reinit(&write_lock);
}
