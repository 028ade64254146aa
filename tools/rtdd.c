/* rtdd: the command line. Dispatches to the subcommands. */
#include "analyze/analyze.h"
#include "cli.h"
#include "torture.h"
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtdd COMMAND [ARGS...]\n"
            "\n"
            "commands:\n"
            "  run [--option=value ...] [--] PROGRAM [ARGS...]\n"
            "                 run PROGRAM with the rtdd runtime preloaded\n"
            "  analyze [--format=text|json|sarif|junit|html] [--output=FILE] [--suppressions=FILE]\n"
            "          [--baseline=FILE] [--debug-dir=DIR]... [--dot=FILE] LOG...\n"
            "                 the post-mortem analyser: de-duplicate, symbolize, gate CI\n"
            "  confirm [--reruns=N] [--timeout=S] LOG -- PROGRAM [ARGS...]\n"
            "                 rerun PROGRAM steered into LOG's lock-order cycles; a rerun that\n"
            "                 deadlocks confirms a cycle; the verdicts are written into LOG\n"
            "  dump PID        write a lock dump of PID (running under rtdd) to its log: every thread's\n"
            "                 held locks, waits and state; for a program that hangs\n"
            "  torture [--duration=S] [--readers=N] [--writers=N]\n"
            "                 stress-test the RCU core (rcutorture-style)\n"
            "\n"
            "  rtdd COMMAND --help   help for one command\n"
            "  rtdd --version        print the version\n"
            "\n"
            "Documentation: docs/user-guide.md, docs/options.md, docs/report-format.md\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("rtdd %s\n", RTDD_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return rtdd_run_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyze"))
        return rtdd_analyze_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "confirm"))
        return rtdd_confirm_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "dump"))
        return rtdd_dump_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "torture"))
        return rtdd_torture_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "__symbolizer"))
        return rtdd_symbolizer_main(argc - 1, argv + 1);
    fprintf(stderr, "rtdd: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
