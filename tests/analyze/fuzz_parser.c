/* libFuzzer target: any bytes as a log, split into lines as the reader
 * does (with its line cap), through the parser, signatures, suppressions
 * and de-duplication. Nothing may crash, hang or leak. */
#include "analysis.h"
#include "input.h"
#include "parser.h"
#include "core/rt_fmt.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_MAX_LINE 4096 /* smaller than AZ_MAX_LINE so the overlong path is reached */

static struct rt_suppressions *suppressions;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!suppressions) {
        static const char rules[] = "active-lock-freed:*xfrm*\ndeadlock:bank.c\n*:libfoo.so\n";
        char msg[256];
        struct rt_buf b;
        rt_buf_init(&b, msg, sizeof msg);
        suppressions = rt_suppressions_parse(rules, sizeof rules - 1, "fuzz", &b);
    }
    struct az_analysis a;
    az_analysis_init(&a);
    a.suppressions = suppressions;
    struct az_parser *p = az_parser_new(az_analysis_report, &a);
    az_parser_begin_log(p, az_analysis_add_log(&a, "fuzz.log"));
    const char *s = (const char *)data, *end = s + size;
    unsigned long lineno = 0;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        int overlong = n > FUZZ_MAX_LINE;
        az_parser_line(p, s, overlong ? FUZZ_MAX_LINE : n, ++lineno, overlong);
        s += n + 1;
    }
    az_parser_end_log(p, lineno);
    az_parser_free(p);
    az_analysis_finish(&a);
    for (unsigned i = 0; i < a.nfindings; i++) {
        char loc[512];
        az_finding_location(a.findings[i], loc, sizeof loc);
        (void)az_finding_fails(a.findings[i]);
    }
    az_analysis_destroy(&a);
    return 0;
}
