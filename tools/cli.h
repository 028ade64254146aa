/* Subcommands of the rtdd command. Each returns the process exit status. */
#ifndef RTDD_CLI_H
#define RTDD_CLI_H
int rtdd_run_main(int argc, char **argv);
void rtdd_run_usage(int to_stderr);
int rtdd_dump_main(int argc, char **argv);
/* The runtime's helper symbolizer (tools/symbolizer.c), not a user's command. */
int rtdd_symbolizer_main(int argc, char **argv);
#endif
