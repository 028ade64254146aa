/* read_side_direct.c where the kernel takes no rseq area (a seccomp filter
 * refuses rseq(2), as some sandboxes' do): neither glibc nor the runtime
 * has one to read the CPU from, record mode is off, and the runtime's
 * entry points record every section, still without the library's slow
 * functions. The program installs the filter and runs itself again. */
// expect: none
// no-output: read side went through
// no-output: cannot sandbox
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#define main read_side_main
#include "read_side_direct.c"
#undef main

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#endif

static int refuse_rseq(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rseq, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof code / sizeof code[0], code };
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--sandboxed")) {
        if (__rseq_size)
            printf("read side went through a sandbox that let glibc register rseq\n");
        return read_side_main();
    }
    if (refuse_rseq()) {
        /* A kernel without seccomp filters: nothing to refuse rseq with. */
        printf("no seccomp filter here (%s): the loop runs unsandboxed\n", strerror(errno));
        return read_side_main();
    }
    char *again[] = { argv[0], "--sandboxed", NULL };
    execv("/proc/self/exe", again);
    printf("cannot sandbox: exec: %s\n", strerror(errno));
    return 1;
}
