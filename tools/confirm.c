/* Confirming lock-order cycles (docs/confirm.md): for each cycle of a log,
 * rerun the program with a steering plan (detect/order/steer.c) up to N
 * times; a rerun that deadlocks at the cycle's acquisition sites (the
 * watchdog's deadlock report, matched by sites, never by addresses)
 * confirms it. The verdicts are written into the original reports as
 * "confirm:" lines (text) or a "confirm" field (JSON lines). */
#include "cli.h"
#include "analyze/cycle.h"
#include "analyze/parser.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 64
#define MAX_MEMBERS 256
#define MAX_DETAIL 8

/* One cycle, and the reports of the log that show it. */
struct group {
    struct az_cycle cycle;
    unsigned long lines[MAX_MEMBERS], end_lines[MAX_MEMBERS];
    unsigned nmembers;
    int confirmed;           /* rerun number (1-based), 0: not confirmed */
    unsigned tried, timed_out;
    double seconds;          /* the reruns' time */
    char detail[MAX_DETAIL][512];
    unsigned ndetail;
};

struct scan {
    struct group *groups;
    unsigned ngroups;
    unsigned unusable; /* cycle reports without sites for every edge */
};

static void scan_report(void *ctx, struct az_report *r)
{
    struct scan *sc = ctx;
    if (!az_cycle_kind(r->kind) || r->corrupt || r->confirm_detail)
        return;
    struct az_cycle c;
    if (az_cycle_from_report(r, &c) < 0) {
        sc->unusable++;
        return;
    }
    struct group *g = NULL;
    for (unsigned i = 0; i < sc->ngroups && !g; i++)
        if (az_cycle_same(&sc->groups[i].cycle, &c))
            g = &sc->groups[i];
    if (!g) {
        if (sc->ngroups >= MAX_GROUPS)
            return;
        g = &sc->groups[sc->ngroups++];
        memset(g, 0, sizeof *g);
        g->cycle = c;
    }
    if (g->nmembers < MAX_MEMBERS) {
        g->lines[g->nmembers] = r->line;
        g->end_lines[g->nmembers++] = r->end_line;
    }
}

/* A file's lines (the text is modified: newlines become NULs). */
struct lines {
    char *text;
    char **line;
    size_t *len;
    unsigned long n;
};

static int read_lines(const char *path, struct lines *l)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 65536, len = 0;
    l->text = malloc(cap + 1);
    size_t got;
    while (l->text && (got = fread(l->text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            char *t = realloc(l->text, cap + 1);
            if (!t) {
                free(l->text);
                l->text = NULL;
            }
            l->text = t;
        }
    }
    fclose(f);
    if (!l->text)
        return -1;
    l->text[len] = 0;
    unsigned long cap_lines = 1;
    for (size_t i = 0; i < len; i++)
        cap_lines += l->text[i] == '\n';
    l->line = malloc(cap_lines * sizeof *l->line);
    l->len = malloc(cap_lines * sizeof *l->len);
    if (!l->line || !l->len)
        return -1;
    for (size_t at = 0; at < len;) {
        char *nl = memchr(l->text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (l->text + at)) : len - at;
        l->line[l->n] = l->text + at;
        l->len[l->n++] = n;
        l->text[at + n] = 0;
        at += n + 1;
    }
    return 0;
}

static void free_lines(struct lines *l)
{
    free(l->text);
    free(l->line);
    free(l->len);
}

static void parse_lines(const struct lines *l, az_report_fn fn, void *ctx)
{
    struct az_parser *p = az_parser_new(fn, ctx);
    az_parser_begin_log(p, 0);
    for (unsigned long i = 0; i < l->n; i++)
        az_parser_line(p, l->line[i], l->len[i], i + 1, 0);
    az_parser_end_log(p, l->n);
    az_parser_free(p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One steered rerun, its output discarded, its log at log. Returns 1 when
 * it ran past the time limit (stopped), 0 when it ended, -1 when it could
 * not start. */
static int rerun(const struct rtdd_confirm_cfg *cfg, const char *plan, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0); /* its processes, stopped together at the time limit */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        char opts[16384];
        /* Later keys win: the user's options, then the rerun's. The
         * watchdog looks sooner than by default: a steered deadlock is
         * there at once, and every rerun waits for it. */
        snprintf(opts, sizeof opts,
                 "%s%slog_path=%s:confirm_plan=%s:exit_on_deadlock=1:halt_on_error=0:print_summary=0:"
                 "deadlock_timeout_ms=500",
                 cfg->options, cfg->options[0] ? ":" : "", log, plan);
        rtdd_run_environment(cfg->runtime, opts);
        execv(cfg->program, cfg->argv);
        _exit(127);
    }
    setpgid(pid, pid);
    double start = now_s();
    int status, over = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (now_s() - start > cfg->timeout_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            over = 1;
            break;
        }
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL); /* what it forked and left behind */
    return over;
}

struct rerun_scan {
    const struct az_cycle *cycle;
    const struct lines *log;
    struct group *g;
    int matched;
};

static void scan_rerun(void *ctx, struct az_report *r)
{
    struct rerun_scan *rs = ctx;
    if (rs->matched || !az_cycle_deadlock_matches(rs->cycle, r))
        return;
    rs->matched = 1;
    /* The deadlock's wait-for graph: who waits for what, held by whom. */
    rs->g->ndetail = 0;
    for (unsigned long i = r->line; i <= r->end_line && i <= rs->log->n && rs->g->ndetail < MAX_DETAIL; i++) {
        const char *s = rs->log->line[i - 1];
        if ((strstr(s, " blocked ") && (strstr(s, " waiting for ") || strstr(s, " waiting on "))) ||
            !strncmp(s, "cycle: ", 7)) {
            /* Without the stack's introduction: the stack is not copied. */
            size_t n = strlen(s);
            if (n >= 5 && !strcmp(s + n - 5, ", at:"))
                n -= 5;
            else if (n && s[n - 1] == ';')
                n--;
            snprintf(rs->g->detail[rs->g->ndetail++], sizeof rs->g->detail[0], "%.*s", (int)n, s);
        }
    }
}

static void confirm_group(const struct rtdd_confirm_cfg *cfg, struct group *g, const char *dir, unsigned index)
{
    double start = now_s();
    for (unsigned k = 0; k < cfg->reruns && !g->confirmed; k++) {
        /* The first rerun pauses every edge's thread; each next one lets
         * one edge's thread go on unpaused (its lock may be what another
         * needs on its way to its own site). */
        int no_pause = k == 0 ? -1 : (int)((k - 1) % g->cycle.nedges);
        char text[16384], plan[256], log[256];
        int n = az_cycle_plan(&g->cycle, no_pause, cfg->pause_ms, text, sizeof text);
        snprintf(plan, sizeof plan, "%s/plan-%u-%u", dir, index, k + 1);
        snprintf(log, sizeof log, "%s/log-%u-%u", dir, index, k + 1);
        FILE *f = fopen(plan, "w");
        if (n < 0 || !f || fwrite(text, 1, (size_t)n, f) != (size_t)n) {
            if (f)
                fclose(f);
            break;
        }
        fclose(f);
        unlink(log);
        int over = rerun(cfg, plan, log);
        if (over < 0)
            break;
        g->tried++;
        g->timed_out += (unsigned)over;
        struct lines l;
        if (read_lines(log, &l) == 0) {
            struct rerun_scan rs = { &g->cycle, &l, g, 0 };
            parse_lines(&l, scan_rerun, &rs);
            if (rs.matched)
                g->confirmed = (int)k + 1;
        }
        free_lines(&l);
        unlink(plan);
        unlink(log);
    }
    g->seconds = now_s() - start;
}

/* The verdict's text (without "confirm: "), one line per element of out. */
static unsigned verdict(const struct rtdd_confirm_cfg *cfg, const struct group *g, char out[][640], unsigned max)
{
    unsigned n = 0;
    if (g->confirmed && g->cycle.cond) {
        snprintf(out[n++], 640,
                 "confirmed: BUG: rerun %d of %u deadlocked in this cycle (steered: the waiter, at its wait while "
                 "holding the lock, and the signaller, at its call that takes the lock, were paused, up to %u ms, "
                 "until both were there)",
                 g->confirmed, cfg->reruns, cfg->pause_ms);
        for (unsigned i = 0; i < g->ndetail && n < max; i++)
            snprintf(out[n++], 640, "  wait-for: %s", g->detail[i]);
    } else if (g->confirmed) {
        snprintf(out[n++], 640,
                 "confirmed: BUG: rerun %d of %u deadlocked in this cycle (steered: a thread reaching one of its %u "
                 "acquisitions while holding the cycle's lock was paused, up to %u ms, until the others reached theirs)",
                 g->confirmed, cfg->reruns, g->cycle.nedges, cfg->pause_ms);
        for (unsigned i = 0; i < g->ndetail && n < max; i++)
            snprintf(out[n++], 640, "  wait-for: %s", g->detail[i]);
    } else if (g->cycle.cond) {
        snprintf(out[n++], 640,
                 "not confirmed in %u rerun%s (steered at its wait and at the signaller's call that takes the lock, "
                 "pauses up to %u ms; no rerun deadlocked in it%s)",
                 g->tried, g->tried == 1 ? "" : "s", cfg->pause_ms,
                 g->timed_out ? ", some were stopped at the time limit" : "");
    } else {
        snprintf(out[n++], 640,
                 "not confirmed in %u rerun%s (steered at its %u acquisitions, pauses up to %u ms; no rerun deadlocked "
                 "in it%s)",
                 g->tried, g->tried == 1 ? "" : "s", g->cycle.nedges, cfg->pause_ms,
                 g->timed_out ? ", some were stopped at the time limit" : "");
    }
    return n;
}

static void json_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

/* Where a text report's verdict goes: before its module lines and SUMMARY. */
static unsigned long insertion_line(const struct lines *l, unsigned long first, unsigned long last)
{
    for (unsigned long i = first; i <= last && i <= l->n; i++)
        if (!strncmp(l->line[i - 1], "module: ", 8) || !strncmp(l->line[i - 1], "SUMMARY: ", 9))
            return i;
    return 0;
}

static int rewrite(const char *path, const struct lines *l, const struct rtdd_confirm_cfg *cfg,
                   const struct scan *sc)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.rtdd-confirm", path);
    struct stat st;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (stat(path, &st) == 0)
        fchmod(fd, st.st_mode & 07777);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return -1;
    }
    /* Which group's verdict goes before which line (0: none), found once. */
    unsigned *verdict_at = calloc(l->n + 1, sizeof *verdict_at);
    if (!verdict_at) {
        fclose(f);
        unlink(tmp);
        return -1;
    }
    for (unsigned k = 0; k < sc->ngroups; k++)
        for (unsigned m = 0; m < sc->groups[k].nmembers; m++) {
            const struct group *c = &sc->groups[k];
            unsigned long first = c->lines[m];
            unsigned long at = first >= 1 && first <= l->n && l->line[first - 1][0] == '{'
                                   ? first
                                   : insertion_line(l, first, c->end_lines[m]);
            if (at)
                verdict_at[at] = k + 1;
        }
    for (unsigned long i = 1; i <= l->n; i++) {
        const char *s = l->line[i - 1];
        const struct group *g = verdict_at[i] ? &sc->groups[verdict_at[i] - 1] : NULL;
        if (g && (g->tried || g->confirmed)) {
            char v[MAX_DETAIL + 1][640];
            unsigned nv = verdict(cfg, g, v, MAX_DETAIL + 1);
            if (s[0] == '{') {
                /* A JSON line: the verdict is one more field. */
                const char *end = strrchr(s, '}');
                if (end) {
                    fwrite(s, 1, (size_t)(end - s), f);
                    fputs(",\"confirm\":\"", f);
                    for (unsigned k = 0; k < nv; k++) {
                        if (k)
                            fputs("; ", f);
                        json_escape(f, v[k]);
                    }
                    fprintf(f, "\"%s\n", end);
                    continue;
                }
            } else {
                for (unsigned k = 0; k < nv; k++)
                    fprintf(f, "confirm: %s\n", v[k]);
            }
        }
        fprintf(f, "%s\n", s);
    }
    free(verdict_at);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int rtdd_confirm_log(const char *path, const struct rtdd_confirm_cfg *cfg)
{
    struct lines l;
    if (read_lines(path, &l) < 0) {
        free_lines(&l);
        fprintf(stderr, "rtdd confirm: cannot read '%s': %s\n", path, strerror(errno));
        return -1;
    }
    struct scan sc = { calloc(MAX_GROUPS, sizeof(struct group)), 0, 0 };
    if (!sc.groups) {
        free_lines(&l);
        return -1;
    }
    parse_lines(&l, scan_report, &sc);
    char dir[] = "/tmp/rtdd-confirm.XXXXXX";
    int confirmed = 0;
    if (sc.ngroups && !mkdtemp(dir)) {
        fprintf(stderr, "rtdd confirm: cannot make a temporary directory: %s\n", strerror(errno));
        free(sc.groups);
        free_lines(&l);
        return -1;
    }
    for (unsigned i = 0; i < sc.ngroups; i++) {
        struct group *g = &sc.groups[i];
        confirm_group(cfg, g, dir, i + 1);
        confirmed += g->confirmed != 0;
        if (g->confirmed)
            fprintf(stderr, "rtdd: confirm: cycle %s: confirmed, rerun %d of %u deadlocked in it (reruns: %.1f s)\n",
                    g->cycle.names[0] ? g->cycle.names : "?", g->confirmed, cfg->reruns, g->seconds);
        else
            fprintf(stderr, "rtdd: confirm: cycle %s: not confirmed in %u rerun%s (reruns: %.1f s)\n",
                    g->cycle.names[0] ? g->cycle.names : "?", g->tried, g->tried == 1 ? "" : "s", g->seconds);
    }
    if (sc.unusable)
        fprintf(stderr, "rtdd: confirm: %u lock-order report%s without a module+offset site for every edge: not tried\n",
                sc.unusable, sc.unusable == 1 ? "" : "s");
    if (sc.ngroups)
        rmdir(dir);
    int bad = sc.ngroups && rewrite(path, &l, cfg, &sc) < 0;
    if (bad)
        fprintf(stderr, "rtdd confirm: cannot rewrite '%s': %s\n", path, strerror(errno));
    free(sc.groups);
    free_lines(&l);
    return bad ? -1 : confirmed;
}
