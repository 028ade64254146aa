/* Unit tests of rtdd analyze: parser, signature, analysis, outputs. */
#include "../analyze/unit_helpers.h"
#include "check_main.h"
#include <string.h>
#include <unistd.h>

const char xfrm_text_report[] =
    "------------[ cut here ]------------\n"
    "BUG: gc_worker/4042, active lock [0x56240eaf02e8(0x56240eaf02a0-0x56240eaf0318)] freed!\n"
    "CPU: 1 PID: 4040 TID: 4042 Comm: gc_worker Time: 2026-12-03T08:23:45.505Z\n"
    "memory [0x56240eaf02a0-0x56240eaf0318] freed by gc_worker/4042 at:\n"
    " [<000056240845326d>] policy_gc_task+0x18/0x1b (32) xfrm_gc+0x126d examples/xfrm_gc.c:38\n"
    " [<00005624084532d2>] worker_thread+0x62/0x78 (48) xfrm_gc+0x12d2 examples/xfrm_gc.c:50\n"
    " [<00007ff2358131f5>] start_thread+0x305/0x48e (160) libc.so.6+0x891f5 ./nptl/pthread_create.c:442\n"
    "the lock [0x56240eaf02e8] (pthread_mutex_t) is held by policy_user/4041, taken at:\n"
    " [<000056240845330c>] policy_user+0x24/0x49 (48) xfrm_gc+0x130c examples/xfrm_gc.c:58\n"
    "the lock was initialized by thread 4040 at:\n"
    " [<000056240845324f>] policy_alloc+0x66/0x6c (48) xfrm_gc+0x124f examples/xfrm_gc.c:31\n"
    " [<000056240845337a>] main+0x49/0xcc (48) xfrm_gc+0x137a examples/xfrm_gc.c:70\n"
    "module: xfrm_gc build-id 72c93cb194d0fff976117e79e9b83e14c058fd9d base 0x562408452000 path "
    "/nonexistent/xfrm_gc\n"
    "module: libc.so.6 build-id 93ac61ec5a8eb1396f9fbd350e3169a558528a40 base 0x7ff23578a000 path "
    "/lib/x86_64-linux-gnu/libc.so.6\n"
    "SUMMARY: rtdd: active-lock-freed xfrm_gc.c:38 in policy_gc_task\n"
    "---[ end report ]---\n";

const char xfrm_json_report[] =
    "{\"rtdd\":1,\"kind\":\"active-lock-freed\",\"severity\":\"BUG\",\"headline\":\"BUG: gc_worker/5555, active lock "
    "[0x11(0x10-0x20)] freed!\",\"pid\":5550,\"tid\":5555,\"cpu\":0,\"comm\":\"gc_worker\",\"time\":\"2026-12-03T09:"
    "00:00.000Z\",\"sections\":[{\"title\":\"memory [0x10-0x20] freed by gc_worker/5555 at:\",\"frames\":[{\"pc\":"
    "\"0x55000000126d\",\"function\":\"policy_gc_task\",\"file\":\"examples/xfrm_gc.c\",\"line\":40,\"offset\":24,"
    "\"size\":27,\"frame_size\":32,\"module\":\"xfrm_gc\",\"module_offset\":\"0x1270\"},{\"pc\":\"0x5500000012d2\","
    "\"function\":\"worker_thread\",\"file\":\"examples/xfrm_gc.c\",\"line\":51,\"module\":\"xfrm_gc\","
    "\"module_offset\":\"0x12d9\"}]},{\"title\":\"the lock [0x11] (pthread_mutex_t) is held by policy_user/5554, "
    "taken at:\",\"frames\":[{\"pc\":\"0x55000000130c\",\"function\":\"policy_user\",\"file\":\"examples/"
    "xfrm_gc.c\",\"line\":59,\"module\":\"xfrm_gc\",\"module_offset\":\"0x1310\"}]},{\"title\":\"a text line\"}],"
    "\"modules\":[{\"name\":\"xfrm_gc\",\"build_id\":\"72c9\",\"base\":\"0x550000000000\",\"path\":\"/nonexistent/"
    "xfrm_gc\"}],\"location\":\"xfrm_gc.c:40\",\"function\":\"policy_gc_task\"}\n";

const char seed_kernel_report[] =
    "this mechanism found the xfrm_policy.c bug:\n"
    "\n"
    " BUG: events/0/4, active lock [e94a8cdc(e94a8cd0-e94a90dc)] freed!\n"
    "  [<c0103e31>] dump_stack+0x1e/0x20 (20)\n"
    "  [<c0136fa2>] check_no_locks_freed+0x158/0x210 (60)\n"
    "  [<c01477e9>] kfree+0x59/0x15a (48)\n"
    "  [<c03638db>] xfrm_policy_gc_task+0x6f/0x7e (28)\n"
    "  [<c012f3c7>] worker_thread+0x1c1/0x26c (132)\n"
    "  [<c01333e9>] kthread+0x95/0xbd (48)\n"
    "  [<c01012c9>] kernel_thread_helper+0x5/0xb (1039269908)\n"
    "\n"
    "so i'd expect more such bugs to be found.\n";

void collect_report(void *ctx, struct az_report *r)
{
    struct collected *c = ctx;
    ck_assert_uint_lt(c->n, 64);
    c->reports[c->n++] = az_report_clone(r);
}

void collected_free(struct collected *c)
{
    for (unsigned i = 0; i < c->n; i++)
        az_report_free(c->reports[i]);
    c->n = 0;
}

void feed_text(struct az_parser *p, unsigned log_index, const char *text)
{
    az_parser_begin_log(p, log_index);
    unsigned long lineno = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        az_parser_line(p, s, n, ++lineno, 0);
        s += n + (nl != NULL);
    }
    az_parser_end_log(p, lineno);
}

void parse_into(struct collected *c, const char *text)
{
    struct az_parser *p = az_parser_new(collect_report, c);
    feed_text(p, 0, text);
    az_parser_free(p);
}

void analyse_text(struct az_analysis *a, const char *name, const char *text)
{
    struct az_parser *p = az_parser_new(az_analysis_report, a);
    feed_text(p, az_analysis_add_log(a, name), text);
    az_parser_free(p);
}

char *temp_file(const char *text, size_t len)
{
    char *path = strdup("/tmp/rtdd-analyze-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

int main(void)
{
    Suite *suites[] = {analyze_parse_suite(), analyze_signature_suite(), analyze_analysis_suite(),
                       analyze_output_suite(), analyze_cycle_suite()};
    return rtdd_check_run("analyze", suites, 5);
}
