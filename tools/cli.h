/* Subcommands of the rtdd command. Each returns the process exit status. */
#ifndef RTDD_CLI_H
#define RTDD_CLI_H
int rtdd_run_main(int argc, char **argv);
void rtdd_run_usage(int to_stderr);
int rtdd_dump_main(int argc, char **argv);

/* rtdd run's pieces that rtdd confirm shares (tools/run.c). */
#include <stddef.h>
int rtdd_run_resolve(const char *name, char *program, size_t pcap, char *runtime, size_t rcap);
/* RTDD_OPTIONS (unless NULL), LD_PRELOAD, G_SLICE, RTDD_ROOT_PID for a program run now. */
void rtdd_run_environment(const char *runtime, const char *options);

/* Confirming lock-order cycles by steered reruns (tools/confirm.c, docs/confirm.md). */
struct rtdd_confirm_cfg {
    unsigned reruns;     /* per cycle; 0: no confirmation */
    unsigned timeout_s;  /* a rerun running longer is stopped: not confirmed */
    unsigned pause_ms;   /* bound of one steering pause */
    const char *program; /* resolved path */
    char **argv;         /* the program's argv */
    const char *runtime; /* librtdd.so */
    const char *options; /* the user's RTDD_OPTIONS text, "" for none */
};
/* rtdd run --confirm: runs the program once, then confirms the log's cycles. */
int rtdd_run_confirm(const struct rtdd_confirm_cfg *cfg);
/* Reruns for each cycle of log and writes the verdicts into it. Returns the
 * number of cycles confirmed, -1 when log cannot be read or rewritten. */
int rtdd_confirm_log(const char *log, const struct rtdd_confirm_cfg *cfg);
int rtdd_confirm_main(int argc, char **argv);
/* The runtime's helper symbolizer (tools/symbolizer.c), not a user's command. */
int rtdd_symbolizer_main(int argc, char **argv);
#endif
