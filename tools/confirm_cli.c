/* rtdd confirm LOG -- PROGRAM, and rtdd run --confirm (docs/confirm.md). */
#include "cli.h"
#include "core/options.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void confirm_usage(FILE *out)
{
    fprintf(out, "usage: rtdd confirm [--reruns=N] [--timeout=S] LOG -- PROGRAM [ARGS...]\n\n"
                 "Reruns PROGRAM under rtdd, steered into each lock-order cycle of LOG (a log of\n"
                 "an earlier run, a CI job's say), up to N times per cycle (default 3). A rerun\n"
                 "that deadlocks in the cycle confirms it. The verdicts are written into LOG's\n"
                 "reports (`confirm:` lines; a \"confirm\" field in JSON lines), where\n"
                 "`rtdd analyze` reads them. RTDD_OPTIONS applies to the reruns.\n\n"
                 "  --reruns=N     reruns per cycle, 1 to 100 (default 3)\n"
                 "  --timeout=S    a rerun running longer is stopped and counts as not\n"
                 "                 confirmed (default 60)\n\n"
                 "Exit status: 1 when a cycle was confirmed, 0 when none was, 2 when rtdd is\n"
                 "used wrongly or cannot read or rewrite LOG.\n");
}

static int number(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < (long)lo || v > (long)hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int rtdd_confirm_main(int argc, char **argv)
{
    struct rtdd_confirm_cfg cfg = { .reruns = 3, .timeout_s = 60, .pause_ms = 1500 };
    const char *log = NULL;
    int i = 1;
    signal(SIGPIPE, SIG_IGN);
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            confirm_usage(stdout);
            return 0;
        }
        if (!strncmp(a, "--reruns=", 9)) {
            if (number(a + 9, 1, 100, &cfg.reruns) < 0) {
                fprintf(stderr, "rtdd confirm: bad value in '%s': 1 to 100\n", a);
                return 2;
            }
        } else if (!strncmp(a, "--timeout=", 10)) {
            if (number(a + 10, 1, 86400, &cfg.timeout_s) < 0) {
                fprintf(stderr, "rtdd confirm: bad value in '%s': 1 to 86400 seconds\n", a);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rtdd confirm: unknown option '%s'\n", a);
            confirm_usage(stderr);
            return 2;
        } else if (!log) {
            log = a;
        } else {
            fprintf(stderr, "rtdd confirm: one LOG, then -- and the program\n");
            return 2;
        }
    }
    if (!log || i >= argc) {
        confirm_usage(stderr);
        return 2;
    }
    if (access(log, R_OK | W_OK) != 0) {
        fprintf(stderr, "rtdd confirm: cannot read and rewrite '%s': %s\n", log, strerror(errno));
        return 2;
    }
    char program[PATH_MAX], runtime[PATH_MAX];
    int bad = rtdd_run_resolve(argv[i], program, sizeof program, runtime, sizeof runtime);
    if (bad)
        return bad;
    const char *env = getenv("RTDD_OPTIONS");
    cfg.program = program;
    cfg.argv = argv + i;
    cfg.runtime = runtime;
    cfg.options = env ? env : "";
    int confirmed = rtdd_confirm_log(log, &cfg);
    return confirmed < 0 ? 2 : confirmed > 0;
}

/* The log the first run writes, as the runtime will name it. */
static void log_name(const char *opt, long pid, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *s = opt; *s && o + 24 < cap; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            o += (size_t)snprintf(out + o, cap - o, "%ld", pid);
            s++;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
}

static void copy_out(const char *path, FILE *to)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, to);
    fclose(f);
    fflush(to);
}

int rtdd_run_confirm(const struct rtdd_confirm_cfg *cfg)
{
    struct rt_options o;
    char errtext[1024];
    struct rt_buf err;
    rt_buf_init(&err, errtext, sizeof errtext);
    rt_options_defaults(&o);
    if (rt_options_parse(&o, cfg->options, &err) < 0) {
        fprintf(stderr, "rtdd run: RTDD_OPTIONS: %s\n", errtext);
        return 2;
    }
    /* The verdicts are written into the log: a log on stderr or stdout is
     * a file for the run, shown on its stream once the verdicts are in. */
    int to_stream = !strcmp(o.log_path, "stderr") || !strcmp(o.log_path, "stdout") || !o.log_path[0];
    char tmpdir[] = "/tmp/rtdd-run.XXXXXX", first_opts[8192 + 600], log[4200];
    snprintf(first_opts, sizeof first_opts, "%s", cfg->options);
    if (to_stream) {
        if (!mkdtemp(tmpdir)) {
            fprintf(stderr, "rtdd run: cannot make a temporary directory: %s\n", strerror(errno));
            return 2;
        }
        snprintf(log, sizeof log, "%s/log", tmpdir);
        snprintf(first_opts, sizeof first_opts, "%s%slog_path=%s", cfg->options, cfg->options[0] ? ":" : "", log);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "rtdd run: cannot fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        rtdd_run_environment(cfg->runtime, first_opts);
        execv(cfg->program, cfg->argv);
        fprintf(stderr, "rtdd run: cannot run '%s': %s\n", cfg->program, strerror(errno));
        _exit(2);
    }
    /* As system(3): the terminal's signals are the program's. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (!to_stream)
        log_name(o.log_path, (long)pid, log, sizeof log);
    int confirmed = 0;
    if (access(log, R_OK) == 0)
        confirmed = rtdd_confirm_log(log, cfg);
    if (to_stream) {
        copy_out(log, !strcmp(o.log_path, "stdout") ? stdout : stderr);
        unlink(log);
        rmdir(tmpdir);
    }
    return confirmed > 0 ? (int)o.exitcode : code;
}
