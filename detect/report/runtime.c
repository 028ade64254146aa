#include "report/runtime.h"
#include "core/core.h"
#include "report/log.h"

struct rt_options rt_opt;
const struct rt_suppressions *rt_supp;

int rt_runtime_configure(const char *options_text, struct rt_buf *err)
{
    rt_options_defaults(&rt_opt);
    if (rt_options_parse(&rt_opt, options_text, err) < 0)
        return -1;
    rt_cpu_setup((int)rt_opt.register_rseq);
    if (rt_opt.suppressions[0]) {
        rt_supp = rt_suppressions_load(rt_opt.suppressions, err);
        if (!rt_supp)
            return -1;
    }
    rt_log_open(rt_opt.log_path);
    return 0;
}
