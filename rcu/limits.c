/* Limits on outstanding callbacks (requirement 5: small memory footprint).
 * Settable by API and, once at start-up, by environment. */
#include "rcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_HARD_LIMIT 100000
#define SOFT_DIVISOR 8

RTDD_HIDDEN size_t rtdd_rcu_hard_limit_value = DEFAULT_HARD_LIMIT;
RTDD_HIDDEN size_t rtdd_rcu_soft_limit_value = DEFAULT_HARD_LIMIT / SOFT_DIVISOR;

void rcu_set_callback_soft_limit(size_t soft)
{
    __atomic_store_n(&rtdd_rcu_soft_limit_value, soft, __ATOMIC_RELAXED);
    rtdd_rcu_kick_worker(); /* a lower limit may already be exceeded */
}

void rcu_set_callback_hard_limit(size_t hard)
{
    __atomic_store_n(&rtdd_rcu_hard_limit_value, hard, __ATOMIC_RELAXED);
    rtdd_rcu_kick_worker();
}

size_t rcu_callback_soft_limit(void)
{
    return __atomic_load_n(&rtdd_rcu_soft_limit_value, __ATOMIC_RELAXED);
}

size_t rcu_callback_hard_limit(void)
{
    return __atomic_load_n(&rtdd_rcu_hard_limit_value, __ATOMIC_RELAXED);
}

/* Parses a decimal count; a bad value is reported and ignored. */
static bool env_count(const char *name, size_t *out)
{
    const char *text = getenv(name);
    if (!text)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-') {
        fprintf(stderr, "rtdd_rcu: ignoring %s=%s: expected a non-negative integer "
                        "(0 = unlimited)\n", name, text);
        return false;
    }
    *out = (size_t)v;
    return true;
}

void rtdd_rcu_limits_init(void)
{
    size_t hard, soft;
    if (env_count("RTDD_RCU_MAX_CALLBACKS", &hard)) {
        rtdd_rcu_hard_limit_value = hard;
        rtdd_rcu_soft_limit_value = hard / SOFT_DIVISOR;
    }
    if (env_count("RTDD_RCU_SOFT_CALLBACKS", &soft))
        rtdd_rcu_soft_limit_value = soft;
}
