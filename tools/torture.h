/* `rtdd torture`: rcutorture-style stress test of librtdd_rcu. */
#ifndef RTDD_TOOLS_TORTURE_H
#define RTDD_TOOLS_TORTURE_H

/* argv[0] is "torture"; returns the exit status (0 pass, 1 violation,
 * 2 usage error). */
int rtdd_torture_main(int argc, char **argv);

#endif
