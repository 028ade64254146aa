/* core/: the engine's shared ground, the one header other subsystems
 * include for it: small definitions and the internal spinlock, the
 * runtime's own allocator, the formatter, quiet writes, raw system calls,
 * the CPU word, options, a thread's /proc state, the stack depot and the
 * address-line filter. core/ includes no other subsystem of detect/. */
#ifndef RTDD_CORE_H
#define RTDD_CORE_H
#include "core/cpu.h"
#include "core/linefilter.h"
#include "core/options.h"
#include "core/procstate.h"
#include "core/quietwrite.h"
#include "core/raw_syscall.h"
#include "core/rt_alloc.h"
#include "core/rt_common.h"
#include "core/rt_fmt.h"
#include "core/stackdepot.h"
#endif
