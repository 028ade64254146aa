#include "parse_kernel.h"
#include "util.h"
#include <string.h>

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* "[  12.345678]" -> its length including a following blank, or 0. */
static size_t timestamp_len(const char *s, size_t n)
{
    if (n < 4 || s[0] != '[')
        return 0;
    size_t i = skip_blanks(s, n, 1);
    uint64_t v;
    size_t d = az_parse_dec(s + i, n - i, &v);
    if (!d)
        return 0;
    i += d;
    if (i < n && s[i] == '.') {
        i++;
        d = az_parse_dec(s + i, n - i, &v);
        if (!d)
            return 0;
        i += d;
    }
    if (i >= n || s[i] != ']')
        return 0;
    i++;
    return i < n && s[i] == ' ' ? i + 1 : i;
}

/* "[T123]" or "[ C1]" -> its length including a following blank, or 0. */
static size_t caller_len(const char *s, size_t n)
{
    if (n < 4 || s[0] != '[')
        return 0;
    size_t i = skip_blanks(s, n, 1);
    if (i >= n || (s[i] != 'T' && s[i] != 'C'))
        return 0;
    uint64_t v;
    size_t d = az_parse_dec(s + i + 1, n - i - 1, &v);
    if (!d || i + 1 + d >= n || s[i + 1 + d] != ']')
        return 0;
    i += 2 + d;
    return i < n && s[i] == ' ' ? i + 1 : i;
}

size_t az_log_prefix_len(const char *s, size_t n)
{
    size_t off = 0;
    for (int round = 0; round < 4; round++) {
        const char *p = s + off;
        size_t left = n - off, k = 0;
        if (left >= 3 && p[0] == '<' && p[1] >= '0' && p[1] <= '9') {
            uint64_t v;
            size_t d = az_parse_dec(p + 1, left - 1, &v);
            if (d && 1 + d < left && p[1 + d] == '>')
                k = d + 2;
        }
        if (!k)
            k = timestamp_len(p, left);
        if (!k)
            k = caller_len(p, left);
        if (!k && round == 0 && left > 9 &&
            ((p[0] >= 'A' && p[0] <= 'Z' && p[3] == ' ') || (p[0] >= '0' && p[0] <= '9' && p[4] == '-'))) {
            /* syslog / journal: "Mar 25 15:59:08 host kernel: ..." or an ISO date first */
            const char *kern = memmem(p, left < 80 ? left : 80, " kernel: ", 9);
            if (kern)
                k = (size_t)(kern - p) + 9;
        }
        if (!k)
            break;
        off += k;
    }
    return off;
}

int az_kernel_frame(struct az_report *r, const char *s, size_t n, struct az_frame *f)
{
    memset(f, 0, sizeof *f);
    size_t i = skip_blanks(s, n, 0);
    if (i == 0 && !(n > 2 && s[0] == '[' && s[1] == '<'))
        return 0; /* frames are indented, or start with the address */
    if (i + 2 < n && s[i] == '[' && s[i + 1] == '<') {
        size_t h = az_parse_hex(s + i + 2, n - i - 2, &f->pc);
        if (!h || i + 2 + h + 1 >= n || s[i + 2 + h] != '>' || s[i + 3 + h] != ']')
            return 0;
        i = skip_blanks(s, n, i + 4 + h);
    }
    int unreliable = 0;
    if (i + 1 < n && s[i] == '?' && s[i + 1] == ' ') {
        unreliable = 1;
        i += 2;
    }
    /* The symbol: NAME+0xOFF/0xSIZE with no blank inside. */
    size_t start = i;
    while (i < n && s[i] != ' ' && s[i] != '\t')
        i++;
    const char *sym = s + start;
    size_t symlen = i - start;
    const char *plus = symlen ? memrchr(sym, '+', symlen) : NULL;
    if (!plus || plus == sym || !az_starts_with(plus, (size_t)(sym + symlen - plus), "+0x"))
        return 0;
    const char *slash = memchr(plus, '/', (size_t)(sym + symlen - plus));
    uint64_t v;
    size_t offlen = (size_t)((slash ? slash : sym + symlen) - plus - 1);
    if (az_parse_hex(plus + 1, offlen, &v) != offlen)
        return 0;
    if (slash) {
        size_t sizelen = (size_t)(sym + symlen - slash - 1);
        if (sizelen < 3 || az_parse_hex(slash + 1, sizelen, &v) != sizelen)
            return 0;
    }
    /* What may follow: " [module]" / " [module buildid]" and " (N)". */
    const char *module = NULL;
    size_t modlen = 0;
    for (;;) {
        i = skip_blanks(s, n, i);
        if (i >= n)
            break;
        if (s[i] == '[') {
            const char *close = memchr(s + i, ']', n - i);
            if (!close)
                return 0;
            module = s + i + 1;
            const char *sp = memchr(module, ' ', (size_t)(close - module));
            modlen = (size_t)((sp ? sp : close) - module);
            i = (size_t)(close - s) + 1;
        } else if (s[i] == '(') {
            size_t d = az_parse_dec(s + i + 1, n - i - 1, &v);
            if (!d || i + 1 + d >= n || s[i + 1 + d] != ')')
                return 0;
            i += d + 2;
        } else {
            return 0;
        }
    }
    if (unreliable)
        return -1;
    f->function = az_report_str(r, sym, (size_t)(plus - sym));
    if (module && modlen)
        f->module = az_report_str(r, module, modlen);
    return 1;
}
