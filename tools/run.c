/* rtdd run: checks that PROGRAM can be preloaded, passes the options
 * through RTDD_OPTIONS, and execs it with the runtime in LD_PRELOAD. */
#include "cli.h"
#include "core/options.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RTDD_LIBDIR
#define RTDD_LIBDIR "/usr/local/lib/rtdd"
#endif

/* Before rtdd run writes anything (help, a refusal, a failed exec): its
 * output may go to a pipe whose reader is gone, and a SIGPIPE must not
 * replace its exit status. Only on paths that never exec the program: an
 * ignored SIGPIPE would be inherited by it. */
static void no_sigpipe(void)
{
    signal(SIGPIPE, SIG_IGN);
}

void rtdd_run_usage(int to_stderr)
{
    FILE *out = to_stderr ? stderr : stdout;
    no_sigpipe();
    fprintf(out, "usage: rtdd run [--confirm[=N]] [--option=value ...] [--] PROGRAM [ARGS...]\n\n"
                 "Runs PROGRAM with the rtdd runtime preloaded. Options are the keys of\n"
                 "RTDD_OPTIONS ('--log-path=F' is 'log_path=F'); they override RTDD_OPTIONS.\n\n"
                 "  --confirm[=N]            after a run with lock-order cycles, rerun PROGRAM up to N\n"
                 "                           times per cycle (default 3), steered into the cycle; a rerun\n"
                 "                           that deadlocks confirms it (docs/confirm.md)\n"
                 "  --confirm-timeout=S      stop a rerun after S seconds (default 60): not confirmed\n\n"
                 "options:\n");
    for (unsigned i = 0; i < rt_option_count; i++) {
        const struct rt_option_info *o = &rt_option_table[i];
        char key[64];
        snprintf(key, sizeof key, "--%s", o->key);
        for (char *p = key; *p; p++)
            if (*p == '_')
                *p = '-';
        fprintf(out, "  %-24s %s (default: %s)\n", key, o->help, o->def);
    }
    fprintf(out, "\nExit status: the program's, or `exitcode` when reports were issued or a cycle\n"
                 "was confirmed; 2 when rtdd itself is used wrongly or cannot run the program.\n");
}

/* The directory holding the running rtdd binary. */
static int self_dir(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n <= 0)
        return -1;
    out[n] = 0;
    char *slash = strrchr(out, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

static int find_runtime(char *out, size_t cap)
{
    char dir[PATH_MAX - 64];
    const char *env = getenv("RTDD_RUNTIME");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return access(out, R_OK);
    }
    if (self_dir(dir, sizeof dir) == 0) {
        const char *rel[] = { "", "/../lib", "/../lib/rtdd" };
        for (unsigned i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(out, cap, "%s%s/librtdd.so", dir, rel[i]);
            char real[PATH_MAX];
            if (access(out, R_OK) == 0 && realpath(out, real)) {
                snprintf(out, cap, "%s", real);
                return 0;
            }
        }
    }
    snprintf(out, cap, "%s/librtdd.so", RTDD_LIBDIR);
    return access(out, R_OK);
}

/* PROGRAM as execvp would find it. */
static int find_program(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        return access(out, F_OK);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", name);
        if (access(out, X_OK) == 0)
            return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* 0: dynamically linked ELF or a script; 1: static ELF; -1: unreadable. */
static int is_static_elf(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Elf64_Ehdr eh;
    int result = 0;
    if (read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == ELFCLASS64) {
        result = 1;
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type == PT_INTERP) {
                result = 0;
                break;
            }
        }
    }
    close(fd);
    return result;
}

static int fail(const char *fmt, const char *arg)
{
    no_sigpipe();
    fprintf(stderr, "rtdd run: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* PROGRAM as rtdd can run it, and the runtime; 0, or 2 with a message. */
int rtdd_run_resolve(const char *name, char *program, size_t pcap, char *runtime, size_t rcap)
{
    if (find_program(name, program, pcap) < 0)
        return fail("cannot find program '%s'", name);
    struct stat st;
    if (stat(program, &st) < 0)
        return fail("cannot run '%s': no such file", program);
    if (S_ISDIR(st.st_mode))
        return fail("cannot run '%s': it is a directory, not a program", program);
    if (st.st_mode & (S_ISUID | S_ISGID))
        return fail("'%s' is setuid or setgid: the dynamic loader ignores LD_PRELOAD for it, so rtdd "
                    "cannot check it. Run a copy without the setuid bit.",
                    program);
    int st_elf = is_static_elf(program);
    if (st_elf < 0)
        return fail("cannot read '%s'", program);
    if (st_elf == 1)
        return fail("'%s' is statically linked: LD_PRELOAD cannot instrument it, so rtdd would check "
                    "nothing. Link it dynamically.",
                    program);
    if (find_runtime(runtime, rcap) != 0)
        return fail("cannot find the runtime librtdd.so (looked next to rtdd, in ../lib and in %s)", RTDD_LIBDIR);
    return 0;
}

void rtdd_run_environment(const char *runtime, const char *options)
{
    if (options)
        setenv("RTDD_OPTIONS", options, 1);
    const char *preload = getenv("LD_PRELOAD");
    char newpreload[2 * PATH_MAX + 8];
    snprintf(newpreload, sizeof newpreload, "%s%s%s", runtime, preload && *preload ? ":" : "",
             preload ? preload : "");
    setenv("LD_PRELOAD", newpreload, 1);
    /* GLib before 2.76 keeps g_slice memory in its own chunks: freeing an
     * object that holds a lock would never reach free(). As under
     * Valgrind, slices become malloc'ed blocks (unless the user said). */
    setenv("G_SLICE", "always-malloc", 0);
    /* The program keeps this pid: the processes it forks or execs are its
     * descendants, and those with nothing to say write no exit summary. */
    char root[24];
    snprintf(root, sizeof root, "%ld", (long)getpid());
    setenv("RTDD_ROOT_PID", root, 1);
}

/* --confirm, --confirm=N, --confirm-timeout=S: 1 when a is one of them
 * (set in *cfg), -1 for a bad value, 0 for another option. */
static int confirm_flag(const char *a, struct rtdd_confirm_cfg *cfg)
{
    char *end;
    if (!strcmp(a, "--confirm")) {
        cfg->reruns = 3;
        return 1;
    }
    if (!strncmp(a, "--confirm=", 10)) {
        long n = strtol(a + 10, &end, 10);
        if (*end || end == a + 10 || n < 1 || n > 100)
            return -1;
        cfg->reruns = (unsigned)n;
        return 1;
    }
    if (!strncmp(a, "--confirm-timeout=", 18)) {
        long n = strtol(a + 18, &end, 10);
        if (*end || end == a + 18 || n < 1 || n > 86400)
            return -1;
        cfg->timeout_s = (unsigned)n;
        return 1;
    }
    return 0;
}

int rtdd_run_main(int argc, char **argv)
{
    struct rt_options scratch;
    struct rtdd_confirm_cfg confirm = { .reruns = 0, .timeout_s = 60, .pause_ms = 1500 };
    char opts[8192] = "";
    size_t optlen = 0;
    int i = 1;
    rt_options_defaults(&scratch);
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            rtdd_run_usage(0);
            return 0;
        }
        int cf = confirm_flag(a, &confirm);
        if (cf < 0)
            return fail("bad value in '%s': --confirm=N takes 1 to 100 reruns, --confirm-timeout=S 1 to 86400 s", a);
        if (cf > 0)
            continue;
        if (a[0] == '-' && a[1] != '-')
            return fail("unknown option '%s' (options are --key=value; put -- before a program whose name "
                        "starts with -); see rtdd run --help", a);
        if (strncmp(a, "--", 2))
            break;
        const char *eq = strchr(a, '=');
        if (!eq)
            return fail("option '%s' needs a value (--key=value); see rtdd run --help", a);
        char key[128];
        size_t klen = (size_t)(eq - a - 2);
        if (klen >= sizeof key)
            return fail("option '%s' is not known; see rtdd run --help", a);
        for (size_t k = 0; k < klen; k++)
            key[k] = a[2 + k] == '-' ? '_' : a[2 + k];
        key[klen] = 0;
        char errtext[1024];
        struct rt_buf err;
        rt_buf_init(&err, errtext, sizeof errtext);
        if (rt_option_set(&scratch, key, klen, eq + 1, strlen(eq + 1), &err) < 0)
            return fail("%s", errtext);
        int n = snprintf(opts + optlen, sizeof opts - optlen, "%s%s=%s", optlen ? ":" : "", key, eq + 1);
        if (n < 0 || (size_t)n >= sizeof opts - optlen)
            return fail("%s", "too many options");
        optlen += (size_t)n;
    }
    if (i >= argc) {
        rtdd_run_usage(1);
        return 2;
    }
    char program[PATH_MAX], runtime[PATH_MAX];
    int bad = rtdd_run_resolve(argv[i], program, sizeof program, runtime, sizeof runtime);
    if (bad)
        return bad;
    const char *old = getenv("RTDD_OPTIONS");
    char merged[sizeof opts + 4096];
    snprintf(merged, sizeof merged, "%s%s%s", old && *old ? old : "", old && *old && optlen ? ":" : "", opts);
    if (confirm.reruns) {
        confirm.program = program;
        confirm.argv = argv + i;
        confirm.runtime = runtime;
        confirm.options = merged;
        return rtdd_run_confirm(&confirm);
    }
    rtdd_run_environment(runtime, optlen ? merged : NULL);
    execv(program, argv + i);
    int e = errno;
    no_sigpipe();
    fprintf(stderr, "rtdd run: cannot run '%s': %s\n", program, strerror(e));
    return 2;
}
