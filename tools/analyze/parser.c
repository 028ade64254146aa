#include "parser.h"
#include "cycle.h"
#include "headline.h"
#include "report/kinds.h"
#include "parse_json.h"
#include "parse_kernel.h"
#include "parse_text.h"
#include "util.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A report longer than this is not one: its end marker was lost. */
#define MAX_TEXT_REPORT_LINES 20000
#define MAX_KERNEL_REPORT_LINES 2000
/* Kernel reports have no end marker: this many lines without a frame end one. */
#define KERNEL_IDLE_LINES 60

enum state { OUTSIDE, IN_TEXT, IN_KERNEL };

/* A report written in pieces (report-format.md, "Long reports") whose next
 * piece has not come yet: other output, other processes' reports, may come
 * in between. Kept with the parser's state for it. */
#define MAX_PENDING 16
#define PIECE_ID_MAX 32
struct pending {
    char id[PIECE_ID_MAX];
    unsigned long lines_in_report;
    size_t prefix_len;
    unsigned char seen_context, seen_summary;
    unsigned long bad_frame_line;
    struct az_report report;
};

struct az_parser {
    az_report_fn fn;
    void *ctx;
    enum state state;
    unsigned log_index;
    unsigned long lines_in_report;
    size_t prefix_len;         /* bytes before the begin marker, stripped from each line */
    unsigned char seen_context, seen_summary;
    unsigned kernel_idle;      /* lines since the last kernel frame */
    unsigned char kernel_final_stack; /* in the last stack ("stack backtrace:" or -rt style) */
    unsigned long bad_frame_line; /* a frame line that did not parse: corrupt, or cut off if the log ends there */
    unsigned long lines_in_piece; /* the bound on a report without an end marker is per piece */
    struct pending *pending[MAX_PENDING];
    unsigned npending;
    struct az_report report;
};

struct az_parser *az_parser_new(az_report_fn fn, void *ctx)
{
    struct az_parser *p = az_xcalloc(1, sizeof *p);
    p->fn = fn;
    p->ctx = ctx;
    az_report_init(&p->report);
    return p;
}

void az_parser_free(struct az_parser *p)
{
    if (p) {
        for (unsigned i = 0; i < p->npending; i++) {
            az_report_destroy(&p->pending[i]->report);
            free(p->pending[i]);
        }
        az_report_destroy(&p->report);
        free(p);
    }
}

static void start(struct az_parser *p, enum state st, unsigned long lineno)
{
    az_report_reset(&p->report);
    p->report.log_index = p->log_index;
    p->report.line = lineno;
    p->report.end_line = lineno;
    p->state = st;
    p->lines_in_report = p->lines_in_piece = 0;
    p->seen_context = p->seen_summary = 0;
    p->kernel_idle = 0;
    p->kernel_final_stack = 0;
    p->bad_frame_line = 0;
}

static void emit(struct az_parser *p)
{
    az_report_demangle(&p->report);
    p->fn(p->ctx, &p->report);
    az_report_reset(&p->report);
    p->state = OUTSIDE;
}

/* "[report ID continues]" / "[report ID continued]": ID into id. */
static int piece_marker(const char *s, size_t n, const char *word, char *id)
{
    static const char pre[] = "[report ";
    size_t k = strlen(word);
    if (n < sizeof pre + k + 2 || memcmp(s, pre, sizeof pre - 1) || s[n - 1] != ']' ||
        memcmp(s + n - 1 - k, word, k) || s[n - 2 - k] != ' ')
        return 0;
    size_t idlen = n - (sizeof pre - 1) - k - 2;
    if (!idlen || idlen >= PIECE_ID_MAX || memchr(s + sizeof pre - 1, ' ', idlen))
        return 0;
    memcpy(id, s + sizeof pre - 1, idlen);
    id[idlen] = 0;
    return 1;
}

static void emit_cut_pending(struct az_parser *p, struct pending *q, const char *why)
{
    az_report_destroy(&p->report);
    memcpy(&p->report, &q->report, sizeof p->report);
    free(q);
    az_report_set_corrupt(&p->report, "report cut off after a piece: %s", why);
    emit(p);
}

/* The report being read continues in a later piece: set aside until then. */
static void suspend(struct az_parser *p, const char *id)
{
    if (p->npending == MAX_PENDING) {
        struct pending *oldest = p->pending[0];
        memmove(p->pending, p->pending + 1, (MAX_PENDING - 1) * sizeof *p->pending);
        p->npending--;
        struct az_report held;
        memcpy(&held, &p->report, sizeof held); /* the one being set aside stays */
        az_report_init(&p->report);
        emit_cut_pending(p, oldest, "too many reports await their next piece");
        az_report_destroy(&p->report);
        memcpy(&p->report, &held, sizeof held);
    }
    struct pending *q = az_xcalloc(1, sizeof *q);
    snprintf(q->id, sizeof q->id, "%s", id);
    q->lines_in_report = p->lines_in_report;
    q->prefix_len = p->prefix_len;
    q->seen_context = p->seen_context;
    q->seen_summary = p->seen_summary;
    q->bad_frame_line = p->bad_frame_line;
    memcpy(&q->report, &p->report, sizeof q->report); /* its arena goes with it */
    az_report_init(&p->report);
    p->pending[p->npending++] = q;
    p->state = OUTSIDE;
}

/* A later piece of report id begins: the report set aside is read on (0),
 * or, its first piece not being in the log, a corrupt one is begun (-1). */
static int resume(struct az_parser *p, const char *id, enum state st, unsigned long lineno)
{
    for (unsigned i = 0; i < p->npending; i++) {
        struct pending *q = p->pending[i];
        if (strcmp(q->id, id))
            continue;
        memmove(p->pending + i, p->pending + i + 1, (p->npending - i - 1) * sizeof *p->pending);
        p->npending--;
        az_report_destroy(&p->report);
        memcpy(&p->report, &q->report, sizeof p->report);
        p->state = st;
        p->lines_in_report = q->lines_in_report;
        p->lines_in_piece = 0;
        p->prefix_len = q->prefix_len;
        p->seen_context = q->seen_context;
        p->seen_summary = q->seen_summary;
        p->bad_frame_line = q->bad_frame_line;
        free(q);
        return 0;
    }
    start(p, st, lineno);
    p->lines_in_report = 2; /* no headline or context line to expect */
    p->seen_context = 1;
    p->report.origin = st == IN_TEXT ? AZ_ORIGIN_TEXT : AZ_ORIGIN_JSON;
    az_report_set_corrupt(&p->report, "a later piece of report %s, whose first piece is not in the log", id);
    return -1;
}

static void json_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno, int overlong)
{
    char id[PIECE_ID_MAX], continues[PIECE_ID_MAX];
    if (overlong) {
        start(p, OUTSIDE, lineno);
        az_report_set_corrupt(&p->report, "JSON report line %lu is too long", lineno);
        emit(p);
        return;
    }
    if (az_json_continued_id(s, n, id, sizeof id)) {
        resume(p, id, OUTSIDE, lineno);
        p->report.end_line = lineno;
        az_json_continuation(&p->report, s, n, continues, sizeof continues);
    } else {
        start(p, OUTSIDE, lineno);
        az_json_report(&p->report, s, n, continues, sizeof continues);
    }
    if (continues[0] && !p->report.corrupt)
        suspend(p, continues);
    else
        emit(p);
}

void az_parser_begin_log(struct az_parser *p, unsigned log_index)
{
    p->log_index = log_index;
    p->state = OUTSIDE;
    az_report_reset(&p->report);
}

/* A begin marker at the start of the line or after the report's prefix
 * (inside a report; a full search would cost more than the parsing). */
static int begin_marker_at(const char *s, size_t n, size_t at)
{
    size_t k = sizeof AZ_BEGIN_LINE - 1;
    return n >= at + k && !memcmp(s + at, AZ_BEGIN_LINE, k);
}

/* Control characters (other than tab) and DEL mean binary data. Checked
 * eight bytes at a time: this runs on every byte of every report. */
static int has_binary(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t below_space = (x - ones * 0x20) & ~x & highs;
        uint64_t del = ((x ^ (ones * 0x7f)) - ones) & ~(x ^ (ones * 0x7f)) & highs;
        if (below_space | del)
            break; /* look closer: a tab is allowed */
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return 1;
    }
    return 0;
}

static void kernel_finish(struct az_parser *p)
{
    struct az_report *r = &p->report;
    if (r->ncycle >= 2 && r->ncycle < AZ_MAX_CYCLE)
        r->cycle[r->ncycle++] = r->cycle[0]; /* the cycle is closed, as in rtdd's cycle: line */
    else if (r->ncycle < 2)
        r->ncycle = 0;
    if (!az_report_frame_count(r))
        az_report_set_corrupt(r, "kernel report with no frames");
    emit(p);
}

static void text_cut_off(struct az_parser *p, const char *why)
{
    struct az_report *r = &p->report;
    if (p->bad_frame_line)
        az_report_set_corrupt(r, "report cut off in the middle of a frame at line %lu (%s)", p->bad_frame_line, why);
    else
        az_report_set_corrupt(r, "report cut off after %u frame%s (%s)", az_report_frame_count(r),
                              az_report_frame_count(r) == 1 ? "" : "s", why);
    emit(p);
}

/* A frame line that did not parse is corrupt once another line follows it
 * in the same report; if the report ends there, it was cut off. */
static void settle_bad_frame(struct az_parser *p)
{
    if (p->bad_frame_line) {
        az_report_set_corrupt(&p->report, "malformed frame at line %lu", p->bad_frame_line);
        p->bad_frame_line = 0;
    }
}

/* A line of an rtdd text report, with log prefixes removed. */
static void text_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno, int overlong)
{
    struct az_report *r = &p->report;
    p->lines_in_report++;
    r->end_line = lineno;
    settle_bad_frame(p);
    if (overlong) {
        az_report_set_corrupt(r, "line %lu is too long", lineno);
        return;
    }
    if (has_binary(s, n)) {
        az_report_set_corrupt(r, "binary data at line %lu", lineno);
        return;
    }
    if (p->lines_in_report == 1) {
        /* The headline. */
        if (!az_starts_with(s, n, "BUG: ") && !az_starts_with(s, n, "WARNING: ") && !az_starts_with(s, n, "INFO: "))
            az_report_set_corrupt(r, "no headline after the begin marker");
        r->headline = az_report_str(r, s, n);
        r->kind = az_headline_kind(s, n);
        return;
    }
    if (p->lines_in_report == 2 &&
        (az_starts_with(s, n, "BUG: ") || az_starts_with(s, n, "WARNING: ") || az_starts_with(s, n, "INFO: "))) {
        /* Another headline where the context line belongs: two reports
         * written line by line into one log by processes that share it. */
        az_report_set_corrupt(r, "reports interleaved: a second headline at line %lu", lineno);
        return;
    }
    if (p->lines_in_report == 2 && !az_starts_with(s, n, "CPU: ") && r->kind >= 0 && !r->corrupt) {
        /* A kernel WARN/lockdep report in "cut here" markers: no rtdd context line. */
        r->origin = AZ_ORIGIN_KERNEL;
        p->state = IN_KERNEL;
        p->lines_in_report = 1;
        az_parser_line(p, s, n, lineno, overlong);
        return;
    }
    if (az_starts_with(s, n, " [<")) {
        struct az_frame f;
        if (az_text_frame(r, s, n, &f) < 0)
            p->bad_frame_line = lineno;
        else
            az_report_add_frame(r, az_report_current_section(r), &f);
        return;
    }
    if (n == 20 && !memcmp(s, " (stack unavailable)", 20)) {
        struct az_section *sec = az_report_current_section(r);
        if (sec)
            sec->is_stack = 1;
        return;
    }
    if (az_starts_with(s, n, "module: ")) {
        if (az_text_module(r, s, n) < 0)
            az_report_set_corrupt(r, "malformed module line at line %lu", lineno);
        return;
    }
    if (az_starts_with(s, n, "SUMMARY: ")) {
        if (p->seen_summary)
            az_report_set_corrupt(r, "two SUMMARY lines (line %lu)", lineno);
        else if (az_text_summary(r, s, n) < 0)
            az_report_set_corrupt(r, "malformed SUMMARY line %lu", lineno);
        p->seen_summary = 1;
        return;
    }
    if (!p->seen_context && az_starts_with(s, n, "CPU: ")) {
        p->seen_context = 1;
        if (az_text_context(r, s, n) < 0)
            az_report_set_corrupt(r, "malformed context line %lu", lineno);
        return;
    }
    if (az_starts_with(s, n, "cycle: ")) {
        if (az_text_cycle(r, s, n) < 0)
            az_report_set_corrupt(r, "malformed cycle line %lu", lineno);
        return;
    }
    if (az_starts_with(s, n, "confirm: ")) {
        /* Written into the report by rtdd run --confirm (docs/confirm.md). */
        if (!r->confirm_detail) {
            r->confirm = (unsigned char)az_confirm_line_state(s + 9, n - 9);
            r->confirm_detail = az_report_str(r, s + 9, n - 9);
        }
        return;
    }
    if (n == 18 && !memcmp(s, "[report truncated]", 18)) {
        r->runtime_truncated = 1;
        return;
    }
    if (p->seen_summary) {
        az_report_set_corrupt(r, "text after the SUMMARY line (line %lu)", lineno);
        return;
    }
    if (n && s[n - 1] == ':') {
        /* A section title (frame lines were taken above); indented ones too,
         * as in "   where alpha_lock had been taken at:". */
        size_t lead = 0;
        while (lead < n && s[lead] == ' ')
            lead++;
        az_report_add_section(r, s + lead, n - lead);
        return;
    }
    /* A text line: kept while there is room, stacks have priority. */
    if (r->nsections < AZ_MAX_SECTIONS - 8)
        az_report_add_section(r, s, n);
}

/* "..., at: FRAME" in a lockdep lock description: a one-frame stack. */
static int kernel_at_line(struct az_report *r, const char *s, size_t n)
{
    const char *at = memmem(s, n, "at: ", 4);
    if (!at || (at > s && at[-1] != ' '))
        return 0;
    struct az_frame f;
    const char *fs = at + 3; /* keep the blank: kernel frames are indented */
    if (az_kernel_frame(r, fs, (size_t)(s + n - fs), &f) != 1)
        return 0;
    /* The lock description before ", at:" titles the one-frame stack. */
    size_t title_len = (size_t)(at - s);
    while (title_len && (s[title_len - 1] == ' ' || s[title_len - 1] == ','))
        title_len--;
    struct az_section *sec = az_report_add_section(r, s, title_len);
    az_report_add_frame(r, sec, &f);
    return 1;
}

/* "-> #1 (&dev->mutex){+.+.}-{3:3}:": the dependency chain, read as the
 * lock-order cycle (closed when the report ends). */
static void kernel_chain_lock(struct az_report *r, const char *s, size_t n)
{
    if (!az_starts_with(s, n, "-> #") || r->ncycle + 1 >= AZ_MAX_CYCLE)
        return;
    const char *open = memchr(s, '(', n);
    if (!open)
        return;
    int depth = 0;
    for (const char *c = open; c < s + n; c++) {
        depth += *c == '(';
        depth -= *c == ')';
        if (!depth) {
            if (c > open + 1)
                r->cycle[r->ncycle++] = az_report_str(r, open + 1, (size_t)(c - open - 1));
            return;
        }
    }
}

static int kernel_ignored_line(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    return az_starts_with(s, n, "<TASK>") || az_starts_with(s, n, "</TASK>") || az_starts_with(s, n, "<IRQ>") ||
           az_starts_with(s, n, "</IRQ>") || az_starts_with(s, n, "Call Trace:") || az_starts_with(s, n, "RIP: ") ||
           az_starts_with(s, n, "Hardware name:") || az_starts_with(s, n, "CPU: ");
}

/* A line of a kernel report, with log prefixes removed. Returns 0 when
 * the line ended the report without belonging to it. */
static int kernel_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno)
{
    struct az_report *r = &p->report;
    p->lines_in_report++;
    if (p->lines_in_report == 1) {
        r->origin = AZ_ORIGIN_KERNEL;
        if (!r->headline) {
            size_t i = 0;
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            r->headline = az_report_str(r, s + i, n - i);
            r->kind = az_headline_kind(s, n);
        }
        r->end_line = lineno;
        return 1;
    }
    if (az_starts_with(s, n, "---[ end trace") || az_starts_with(s, n, "---[ end report")) {
        r->end_line = lineno;
        kernel_finish(p);
        return 1;
    }
    if (az_headline_kind(s, n) >= 0 || memmem(s, n, AZ_BEGIN_LINE, sizeof AZ_BEGIN_LINE - 1) ||
        az_json_candidate(s, n) || p->lines_in_report > MAX_KERNEL_REPORT_LINES) {
        kernel_finish(p);
        return 0;
    }
    struct az_frame f;
    int fr = az_kernel_frame(r, s, n, &f);
    if (fr != 0) {
        r->end_line = lineno;
        p->kernel_idle = 0;
        if (fr == 1) {
            struct az_section *sec = az_report_current_section(r);
            /* Frames right after the headline: the -rt style, one stack and done. */
            if (sec && !sec->title && r->nsections == 1)
                p->kernel_final_stack = 1;
            az_report_add_frame(r, sec, &f);
        }
        return 1;
    }
    size_t blank = 0;
    while (blank < n && (s[blank] == ' ' || s[blank] == '\t'))
        blank++;
    struct az_section *cur = r->nsections ? &r->sections[r->nsections - 1] : NULL;
    if (p->kernel_final_stack && cur && cur->nframes && !kernel_ignored_line(s, n)) {
        kernel_finish(p);
        return blank == n; /* a blank line belongs to the report; prose does not */
    }
    if (++p->kernel_idle > KERNEL_IDLE_LINES) {
        kernel_finish(p);
        return 0;
    }
    if (blank == n || kernel_ignored_line(s, n)) {
        const char *t = s + blank;
        if (az_starts_with(t, n - blank, "CPU: ") && !r->comm) {
            const char *comm = memmem(t, n - blank, " Comm: ", 7);
            if (comm) {
                const char *e = comm + 7;
                while (e < s + n && *e != ' ')
                    e++;
                r->comm = az_report_str(r, comm + 7, (size_t)(e - comm - 7));
            }
        }
        return 1;
    }
    r->end_line = lineno;
    if (kernel_at_line(r, s + blank, n - blank))
        return 1;
    if (s[n - 1] == ':') {
        az_report_add_section(r, s + blank, n - blank);
        kernel_chain_lock(r, s + blank, n - blank);
        if (az_starts_with(s + blank, n - blank, "stack backtrace:"))
            p->kernel_final_stack = 1;
    }
    return 1;
}

static void outside_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno, int overlong)
{
    const char *begin = begin_marker_at(s, n, 0) ? s
                        : n >= sizeof AZ_BEGIN_LINE - 1 ? memmem(s, n, AZ_BEGIN_LINE, sizeof AZ_BEGIN_LINE - 1)
                                                        : NULL;
    if (begin) {
        start(p, IN_TEXT, lineno);
        p->prefix_len = (size_t)(begin - s);
        return;
    }
    if (az_json_candidate(s, n)) {
        json_line(p, s, n, lineno, overlong);
        return;
    }
    char id[PIECE_ID_MAX];
    for (unsigned i = 0; i < p->npending; i++) {
        size_t at = p->pending[i]->prefix_len;
        if (n > at && piece_marker(s + at, n - at, "continued", id) && !strcmp(id, p->pending[i]->id)) {
            resume(p, id, IN_TEXT, lineno);
            p->report.end_line = lineno;
            return;
        }
    }
    if (piece_marker(s, n, "continued", id)) {
        resume(p, id, IN_TEXT, lineno);
        return;
    }
    if (az_headline_candidate(s, n) && !overlong) {
        int kind = az_headline_kind(s, n);
        if (kind >= 0) {
            start(p, IN_KERNEL, lineno);
            kernel_line(p, s, n, lineno);
        }
    }
}

void az_parser_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno, int overlong)
{
    if (n && s[n - 1] == '\r')
        n--;
    size_t pre = az_log_prefix_len(s, n);
    s += pre;
    n -= pre;
    switch (p->state) {
    case OUTSIDE:
        outside_line(p, s, n, lineno, overlong);
        return;
    case IN_TEXT:
        if (n && s[0] == '-' ? begin_marker_at(s, n, 0) : begin_marker_at(s, n, p->prefix_len)) {
            text_cut_off(p, "a new report begins");
            outside_line(p, s, n, lineno, overlong);
            return;
        }
        if (az_json_candidate(s, n)) {
            text_cut_off(p, "a JSON report follows");
            outside_line(p, s, n, lineno, overlong);
            return;
        }
        if (p->prefix_len && n >= p->prefix_len) {
            s += p->prefix_len;
            n -= p->prefix_len;
        }
        char id[PIECE_ID_MAX];
        if (piece_marker(s, n, "continues", id)) {
            settle_bad_frame(p);
            p->report.end_line = lineno;
            suspend(p, id);
            return;
        }
        if (n == sizeof AZ_END_LINE - 1 && !memcmp(s, AZ_END_LINE, n)) {
            settle_bad_frame(p);
            p->report.end_line = lineno;
            if (!p->seen_summary)
                az_report_set_corrupt(&p->report, "no SUMMARY line");
            if (p->report.kind < 0)
                az_report_set_corrupt(&p->report, "unrecognised report");
            emit(p);
            return;
        }
        if (++p->lines_in_piece > MAX_TEXT_REPORT_LINES) {
            text_cut_off(p, "no end marker");
            outside_line(p, s, n, lineno, overlong);
            return;
        }
        text_line(p, s, n, lineno, overlong);
        return;
    case IN_KERNEL:
        if (overlong) {
            p->lines_in_report++;
            return;
        }
        if (!kernel_line(p, s, n, lineno))
            outside_line(p, s, n, lineno, overlong);
        return;
    }
}

void az_parser_end_log(struct az_parser *p, unsigned long last_lineno)
{
    (void)last_lineno;
    if (p->state == IN_TEXT)
        text_cut_off(p, "the log ends");
    else if (p->state == IN_KERNEL)
        kernel_finish(p);
    p->state = OUTSIDE;
    for (unsigned i = 0; i < p->npending; i++)
        emit_cut_pending(p, p->pending[i], "the log ends before its next piece");
    p->npending = 0;
}
