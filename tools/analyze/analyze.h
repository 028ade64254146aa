/* rtdd analyze: the post-mortem log analyser (docs/analyze.md). */
#ifndef RTDD_ANALYZE_H
#define RTDD_ANALYZE_H
/* argv[0] is "analyze". Returns the exit status: 0 no unsuppressed findings
 * (or all in the baseline), 1 findings, 2 usage error or unreadable input. */
int rtdd_analyze_main(int argc, char **argv);
#endif
