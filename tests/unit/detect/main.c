#include "check_main.h"
#include "detect/suites.h"
#include "report/report.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char log_path[128];
static char log_text[1 << 20];
int test_fatal_exits, test_fatal_code;

static void record_fatal_exit(int code)
{
    test_fatal_exits++;
    test_fatal_code = code;
}

const char *test_log_setup(const char *extra_options)
{
    char opts[1024];
    char errtext[1024];
    struct rt_buf err;
    static int seq;
    snprintf(log_path, sizeof log_path, "/tmp/rtdd-unit-%d-%d.log", getpid(), seq++);
    unlink(log_path);
    snprintf(opts, sizeof opts, "log_path=%s%s%s", log_path, extra_options ? ":" : "",
             extra_options ? extra_options : "");
    rt_buf_init(&err, errtext, sizeof errtext);
    rt_fatal_exit_hook = record_fatal_exit;
    test_fatal_exits = test_fatal_code = 0;
    if (rt_runtime_configure(opts, &err) < 0) {
        fprintf(stderr, "test setup: %s\n", errtext);
        return NULL;
    }
    return log_path;
}

const char *test_log_read(void)
{
    FILE *f = fopen(log_path, "r");
    size_t n = 0;
    if (f) {
        n = fread(log_text, 1, sizeof log_text - 1, f);
        fclose(f);
    }
    log_text[n] = 0;
    return log_text;
}

int main(void)
{
    Suite *suites[] = {
        fmt_suite(),     options_suite(), kinds_suite(),  suppress_suite(), locktab_suite(),  stackdepot_suite(),
        locks_suite(),   freed_suite(),   report_suite(), log_suite(),      symbolize_suite(), lockorder_suite(), rcucheck_suite(),
        thread_suite(),   graphorder_suite(), feasible_suite(), lockgroup_suite(), condwait_suite(), rcuptr_suite(), lazylock_suite(), hang_suite(),
        shared_suite(), watchdog_suite(), joinorder_suite(), demangle_suite(), semcheck_suite(), condsignal_suite(), steer_suite(),
    };
    int r = rtdd_check_run("detect", suites, (int)(sizeof suites / sizeof suites[0]));
    unlink(log_path);
    return r;
}
