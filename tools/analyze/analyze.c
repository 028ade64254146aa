/* rtdd analyze: command line, then read every log, then write one output. */
#include "analyze.h"
#include "report/demangle.h"
#include "analysis.h"
#include "output.h"
#include "parser.h"
#include "core/rt_fmt.h"
#include "report/suppress.h"
#include "util.h"
#include <errno.h>
#include <sys/resource.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RTDD_VERSION
#define RTDD_VERSION "0"
#endif

enum format { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT, FMT_HTML };
static const char *const format_names[] = {"text", "json", "sarif", "junit", "html"};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtdd analyze [OPTIONS] LOG...\n"
            "\n"
            "Reads rtdd logs (text or JSON lines, optionally gzip-compressed) and kernel\n"
            "lockdep/-rt reports, symbolizes frames offline, groups duplicate reports into\n"
            "findings and writes a summary. LOG '-' is standard input.\n"
            "\n"
            "options:\n"
            "  --format=FORMAT      text (default), json, sarif, junit or html\n"
            "  --output=FILE        write the output to FILE instead of standard output\n"
            "  --suppressions=FILE  KIND:PATTERN lines (the runtime's format): matching\n"
            "                       reports are counted as suppressed and do not fail the run\n"
            "  --baseline=FILE      a previous `--format=json` output: findings already in it\n"
            "                       do not fail the run\n"
            "  --debug-dir=DIR      also look for ELF and debug files in DIR (DIR/.build-id/,\n"
            "                       DIR/NAME); may be repeated; /usr/lib/debug is always searched\n"
            "  --dot=FILE           write the lock-order cycles as a Graphviz graph to FILE\n"
            "  --docs-dir=DIR       where the kind pages (KIND.md) are, for SARIF rule help\n"
            "  --no-symbolize       keep frames as they are in the logs\n"
            "  --debuginfod         allow libdw to use debuginfod (DEBUGINFOD_URLS); off by default\n"
            "  --stats              print input size, throughput and peak memory on standard error\n"
            "  --help               this text\n"
            "\n"
            "exit status: 0 no unsuppressed findings (or all in the baseline), 1 findings,\n"
            "2 usage error or unreadable input. INFO findings (rcu-stall) never fail the run.\n"
            "Documentation: docs/analyze.md\n");
}

struct options {
    enum format format;
    const char *output, *suppressions, *baseline, *dot, *docs_dir;
    const char **debug_dirs;
    unsigned ndebug_dirs;
    int symbolize, debuginfod, stats;
    const char **logs;
    unsigned nlogs;
};

static int usage_error(const char *fmt, const char *arg)
{
    fputs("rtdd analyze: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(see rtdd analyze --help)\n", stderr);
    return 2;
}

/* "--name=value" or "--name value": returns the value or NULL when arg is not --name. */
static const char *option_value(const char *name, int argc, char **argv, int *i, int *missing)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n))
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n])
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->symbolize = 1;
    o->debug_dirs = az_xcalloc((size_t)argc, sizeof *o->debug_dirs);
    o->logs = az_xcalloc((size_t)argc, sizeof *o->logs);
    int only_logs = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int missing = 0;
        if (only_logs || arg[0] != '-' || !strcmp(arg, "-")) {
            o->logs[o->nlogs++] = arg;
            continue;
        }
        if (!strcmp(arg, "--")) {
            only_logs = 1;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if ((v = option_value("--format", argc, argv, &i, &missing))) {
            int found = -1;
            for (int k = 0; k < (int)(sizeof format_names / sizeof *format_names); k++)
                if (!strcmp(v, format_names[k]))
                    found = k;
            if (found < 0)
                return usage_error("unknown format '%s' (valid: text, json, sarif, junit, html)", v);
            o->format = (enum format)found;
        } else if ((v = option_value("--output", argc, argv, &i, &missing)) ||
                   (v = option_value("-o", argc, argv, &i, &missing))) {
            if (!*v)
                return usage_error("--output needs a file name%s", "");
            o->output = v;
        } else if ((v = option_value("--suppressions", argc, argv, &i, &missing))) {
            o->suppressions = v;
        } else if ((v = option_value("--baseline", argc, argv, &i, &missing))) {
            o->baseline = v;
        } else if ((v = option_value("--debug-dir", argc, argv, &i, &missing))) {
            if (!*v)
                return usage_error("--debug-dir needs a directory%s", "");
            o->debug_dirs[o->ndebug_dirs++] = v;
        } else if ((v = option_value("--dot", argc, argv, &i, &missing))) {
            if (!*v)
                return usage_error("--dot needs a file name%s", "");
            o->dot = v;
        } else if ((v = option_value("--docs-dir", argc, argv, &i, &missing))) {
            o->docs_dir = v;
        } else if (!strcmp(arg, "--no-symbolize")) {
            o->symbolize = 0;
        } else if (!strcmp(arg, "--debuginfod")) {
            o->debuginfod = 1;
        } else if (!strcmp(arg, "--stats")) {
            o->stats = 1;
        } else if (missing) {
            return usage_error("option '%s' needs a value", arg);
        } else {
            return usage_error("unknown option '%s'", arg);
        }
        if (missing)
            return usage_error("option '%s' needs a value", arg);
    }
    if (!o->nlogs)
        return usage_error("no log given%s (name the log files, or '-' for standard input)", "");
    return -1; /* go on */
}

/* The kind pages: --docs-dir, $RTDD_DOCS_DIR, then next to the binary
 * (build tree: build/bin/../../docs/kinds; install: bin/../share/doc/rtdd/kinds). */
static const char *find_docs_dir(const char *given, char *buf, size_t cap)
{
    if (given)
        return given;
    const char *env = getenv("RTDD_DOCS_DIR");
    if (env && *env)
        return env;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    static const char *const rel[] = {"/../../docs/kinds", "/../share/doc/rtdd/kinds", "/../docs/kinds"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        snprintf(buf, cap, "%s%s", exe, rel[i]);
        if (access(buf, R_OK | X_OK) == 0)
            return buf;
    }
    return NULL;
}

/* Peak resident memory of this process, from /proc/self/status (kB). */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* CPU time used so far (user + system): throughput that other load on the machine does not skew. */
static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_output(const struct options *o, const struct az_analysis *a, const struct az_output_context *ctx)
{
    FILE *out = stdout;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "rtdd analyze: cannot write '%s': %s\n", o->output, strerror(errno));
        return -1;
    }
    int (*const writers[])(FILE *, const struct az_analysis *, const struct az_output_context *) = {
        az_write_text, az_write_json, az_write_sarif, az_write_junit, az_write_html};
    int rc = writers[o->format](out, a, ctx);
    if (fflush(out) != 0)
        rc = -1;
    if (out != stdout && fclose(out) != 0)
        rc = -1;
    if (rc < 0)
        fprintf(stderr, "rtdd analyze: error writing %s\n", o->output ? o->output : "standard output");
    if (rc == 0 && o->dot) {
        FILE *dot = fopen(o->dot, "w");
        if (!dot) {
            fprintf(stderr, "rtdd analyze: cannot write '%s': %s\n", o->dot, strerror(errno));
            return -1;
        }
        rc = az_write_dot(dot, a, ctx);
        if (fclose(dot) != 0 || rc < 0) {
            fprintf(stderr, "rtdd analyze: error writing %s\n", o->dot);
            rc = -1;
        }
    }
    return rc;
}

int rtdd_analyze_main(int argc, char **argv)
{
    struct options o;
    rt_demangle_may_load(); /* C++ names from any log, on any machine with libstdc++ */
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        free(o.debug_dirs);
        free(o.logs);
        return rc;
    }
    int status = 0;
    struct az_analysis a;
    az_analysis_init(&a);
    struct rt_suppressions *supp = NULL;
    char err[4096];
    if (o.suppressions) {
        char msg[1024];
        struct rt_buf b;
        rt_buf_init(&b, msg, sizeof msg);
        if (!(supp = rt_suppressions_load(o.suppressions, &b))) {
            fprintf(stderr, "rtdd analyze: %s\n", msg);
            status = 2;
            goto out;
        }
        a.suppressions = supp;
    }
    if (o.baseline && az_analysis_load_baseline(&a, o.baseline, err, sizeof err) < 0) {
        fprintf(stderr, "rtdd analyze: %s\n", err);
        status = 2;
        goto out;
    }
    if (o.symbolize)
        a.symbolizer = az_symbolizer_new(o.debug_dirs, o.ndebug_dirs, o.debuginfod);
    double start = now(), cpu_start = cpu_seconds();
    struct az_parser *p = az_parser_new(az_analysis_report, &a);
    int unreadable = 0, stdin_used = 0;
    for (unsigned i = 0; i < o.nlogs; i++) {
        if (!strcmp(o.logs[i], "-") && stdin_used++) {
            fprintf(stderr, "rtdd analyze: standard input ('-') given twice; read once\n");
            continue;
        }
        unsigned idx = az_analysis_add_log(&a, o.logs[i]);
        if (az_read_log(o.logs[i], p, idx, &a.input, err, sizeof err) < 0) {
            fprintf(stderr, "rtdd analyze: %s\n", err);
            az_analysis_read_error(&a, err);
            unreadable = 1;
        }
    }
    az_parser_free(p);
    az_analysis_finish(&a);
    if (o.stats) {
        double secs = now() - start, cpu = cpu_seconds() - cpu_start;
        struct az_symbolizer_stats sym = {0};
        if (a.symbolizer)
            az_symbolizer_stats(a.symbolizer, &sym);
        fprintf(stderr,
                "rtdd analyze: stats: bytes=%llu lines=%lu reports=%lu findings=%u seconds=%.3f mb_per_s=%.1f "
                "cpu_seconds=%.3f mb_per_cpu_s=%.1f peak_rss_kb=%ld modules_opened=%u modules_missing=%u frames_resolved=%lu frames_unresolved=%lu "
                "lookups_cached=%lu\n",
                a.input.bytes, a.input.lines, a.reports, a.nfindings, secs,
                secs > 0 ? (double)a.input.bytes / 1e6 / secs : 0.0, cpu, cpu > 0 ? (double)a.input.bytes / 1e6 / cpu : 0.0,
                peak_rss_kb(), sym.modules_opened,
                sym.modules_missing, sym.frames_resolved, sym.frames_unresolved, sym.cache_hits);
    }
    char docs[4096];
    struct az_output_context ctx = {RTDD_VERSION, find_docs_dir(o.docs_dir, docs, sizeof docs)};
    if (write_output(&o, &a, &ctx) < 0) {
        status = 2;
    } else if (unreadable) {
        status = 2;
    } else {
        for (unsigned i = 0; i < a.nfindings; i++)
            if (az_finding_fails(a.findings[i]))
                status = 1;
    }
    az_symbolizer_free(a.symbolizer);
out:
    az_analysis_destroy(&a);
    (void)supp; /* rt_zalloc memory lives as long as the process; it is not free()d */
    free(o.debug_dirs);
    free(o.logs);
    return status;
}
