/* Standalone driver for the torture test (the rtdd binary dispatches the
 * same function as `rtdd torture`). */
#include "torture.h"

int main(int argc, char **argv)
{
    argv[0] = "torture";
    return rtdd_torture_main(argc, argv);
}
