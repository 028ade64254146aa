/* Lock-order cycles by their sites (cycle.h). */
#include "cycle.h"
#include "report/kinds.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

const char *az_confirm_name(int state)
{
    return state == AZ_CONFIRM_CONFIRMED ? "confirmed" : state == AZ_CONFIRM_NOT_CONFIRMED ? "not confirmed" : "not tried";
}

int az_cycle_kind(int kind)
{
    return kind == RT_KIND_LOCK_ORDER_INVERSION || kind == RT_KIND_LATENT_LOCK_ORDER || kind == RT_KIND_COND_LOCK_ORDER;
}

/* The site of a stack: its first frame with a module offset (inlined
 * frames share their caller's address, so the first one is the call). */
static int stack_site(const struct az_section *s, char *out, size_t cap)
{
    for (unsigned i = 0; i < s->nframes; i++) {
        const struct az_frame *f = &s->frames[i];
        if (f->has_module_offset && f->module) {
            int n = snprintf(out, cap, "%s+0x%llx", f->module, (unsigned long long)f->module_offset);
            return n > 0 && (size_t)n < cap ? 0 : -1;
        }
    }
    return -1;
}

static int contains(const char *s, const char *what)
{
    return s && strstr(s, what) != NULL;
}

/* Which part of an edge a section's stack is: 1 the acquisition that
 * waits, 2 where the held lock was taken, 0 neither (the waits shown by
 * "This deadlock is happening now", the context). */
static int section_role(const char *title)
{
    if (!title)
        return 0;
    while (*title == ' ') /* JSON titles keep the text's indentation */
        title++;
    if (contains(title, " is trying to acquire lock ") || contains(title, " calls synchronize_rcu(), which waits for ") ||
        (!strncmp(title, "-> ", 3) && contains(title, " taken while holding ")))
        return 1;
    if (!strncmp(title, "but the thread already holds lock ", 34) ||
        (!strncmp(title, "where ", 6) && contains(title, " had been taken at")))
        return 2;
    return 0;
}

/* The parts of a cond-lock-order report: 1 the wait (while holding L), 2
 * where the waiter took L, 3 where the signaller takes L (an edge that
 * holds nothing the plan need check), 0 the signal and the rest. */
static int cond_section_role(const char *title)
{
    if (!title)
        return 0;
    while (*title == ' ')
        title++;
    if ((contains(title, " waits on condition variable ") || contains(title, " waits on semaphore ")) &&
        contains(title, " while holding "))
        return 1;
    if (!strncmp(title, "but ", 4) && contains(title, " when it does, taken at"))
        return 3;
    if (contains(title, " was taken by ") && !strncmp(title + strlen(title) - 4, " at:", 4))
        return 2;
    return 0;
}

/* "L -> COND -> L", from the wait's title ("... waits on semaphore [0x..]
 * NAME (...) while holding L, at:"). */
static void cond_names(const char *title, char *out, size_t cap)
{
    const char *on = strstr(title, " waits on "), *hold = strstr(title, " while holding ");
    if (!on || !hold)
        return;
    const char *name = strchr(on, ']');
    name = name && name < hold ? name + 2 : on + 10;
    const char *end = strstr(name, " (");
    if (!end || end > hold)
        end = hold;
    const char *lock = hold + 15, *lend = strstr(lock, ", at:");
    int ln = lend ? (int)(lend - lock) : (int)strlen(lock);
    snprintf(out, cap, "%.*s -> %.*s -> %.*s", ln, lock, (int)(end - name), name, ln, lock);
}

static int cond_cycle_from_report(const struct az_report *r, struct az_cycle *c)
{
    int seen = 0; /* 1: the wait, 2: its lock, 3: the signaller's lock call */
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        int role = cond_section_role(s->title);
        if (!role)
            continue;
        if (role != seen + 1)
            return -1;
        seen = role;
        char *site = role == 1 ? c->edges[0].acquire : role == 2 ? c->edges[0].held : c->edges[1].acquire;
        if (stack_site(s, site, AZ_SITE_MAX) < 0)
            return -1;
        if (role == 1)
            cond_names(s->title, c->names, sizeof c->names);
    }
    if (seen != 3)
        return -1;
    snprintf(c->edges[1].held, AZ_SITE_MAX, "-");
    c->nedges = 2;
    c->cond = 1;
    return 0;
}

int az_cycle_from_report(const struct az_report *r, struct az_cycle *c)
{
    memset(c, 0, sizeof *c);
    if (!az_cycle_kind(r->kind) || r->corrupt)
        return -1;
    if (r->kind == RT_KIND_COND_LOCK_ORDER)
        return cond_cycle_from_report(r, c);
    int pending = 0; /* an acquisition waits for its held lock's section */
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        int role = section_role(s->title);
        if (role == 1) {
            if (pending || c->nedges >= AZ_MAX_CYCLE || stack_site(s, c->edges[c->nedges].acquire, AZ_SITE_MAX) < 0)
                return -1;
            pending = 1;
        } else if (role == 2) {
            if (!pending || stack_site(s, c->edges[c->nedges].held, AZ_SITE_MAX) < 0)
                return -1;
            pending = 0;
            c->nedges++;
        }
    }
    if (pending || c->nedges < 2)
        return -1;
    size_t len = 0;
    for (unsigned i = 0; i < r->ncycle && len < sizeof c->names; i++) {
        int n = snprintf(c->names + len, sizeof c->names - len, "%s%s", i ? " -> " : "", r->cycle[i]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return 0;
}

static int has_edge(const struct az_cycle *c, const struct az_cycle_edge *e)
{
    for (unsigned i = 0; i < c->nedges; i++)
        if (!strcmp(c->edges[i].acquire, e->acquire) && !strcmp(c->edges[i].held, e->held))
            return 1;
    return 0;
}

int az_cycle_same(const struct az_cycle *a, const struct az_cycle *b)
{
    if (a->nedges != b->nedges)
        return 0;
    for (unsigned i = 0; i < a->nedges; i++)
        if (!has_edge(b, &a->edges[i]) || !has_edge(a, &b->edges[i]))
            return 0;
    return 1;
}

int az_cycle_deadlock_matches(const struct az_cycle *c, const struct az_report *d)
{
    if (d->kind != RT_KIND_DEADLOCK || d->corrupt)
        return 0;
    if (c->cond) {
        /* The waiter blocked at its wait ("waiting on"), the signaller at
         * its lock call ("waiting for" the lock). */
        int wait = 0, lock = 0;
        for (unsigned i = 0; i < d->nsections; i++) {
            const struct az_section *s = &d->sections[i];
            char site[AZ_SITE_MAX];
            if (!s->nframes || stack_site(s, site, sizeof site) < 0)
                continue;
            wait |= contains(s->title, " waiting on ") && !strcmp(site, c->edges[0].acquire);
            lock |= contains(s->title, " waiting for ") && !strcmp(site, c->edges[1].acquire);
        }
        return wait && lock;
    }
    unsigned matched = 0;
    for (unsigned i = 0; i < d->nsections; i++) {
        const struct az_section *s = &d->sections[i];
        char site[AZ_SITE_MAX];
        if (!contains(s->title, " waiting for ") || !s->nframes || stack_site(s, site, sizeof site) < 0)
            continue;
        int found = 0;
        for (unsigned e = 0; e < c->nedges && !found; e++)
            found = !strcmp(c->edges[e].acquire, site);
        if (!found)
            return 0;
        matched++;
    }
    return matched > 0;
}

int az_cycle_plan(const struct az_cycle *c, int no_pause, unsigned pause_ms, char *out, size_t cap)
{
    size_t len = 0;
    int n = snprintf(out, cap, "rtdd-confirm-plan 1\n# cycle: %s\npause_ms %u\n", c->names[0] ? c->names : "?",
                     pause_ms);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    len = (size_t)n;
    if (no_pause >= 0) {
        n = snprintf(out + len, cap - len, "no_pause %d\n", no_pause);
        if (n < 0 || (size_t)n >= cap - len)
            return -1;
        len += (size_t)n;
    }
    for (unsigned i = 0; i < c->nedges; i++) {
        n = snprintf(out + len, cap - len, "%s %s %s\n", c->cond && i == 0 ? "wait" : "edge", c->edges[i].acquire,
                     c->edges[i].held);
        if (n < 0 || (size_t)n >= cap - len)
            return -1;
        len += (size_t)n;
    }
    return (int)len;
}

int az_confirm_line_state(const char *s, size_t n)
{
    if (az_starts_with(s, n, "confirmed"))
        return AZ_CONFIRM_CONFIRMED;
    if (az_starts_with(s, n, "not confirmed"))
        return AZ_CONFIRM_NOT_CONFIRMED;
    return AZ_CONFIRM_NOT_TRIED;
}
