/* Compiled to assembly (non-PIC, so every global access names its symbol)
 * by rcu-check: see check_onebranch.sh for what is asserted. */
#include <rtdd/rcu.h>

int probe_value;
int *probe_ptr = &probe_value;

void probe_lock(void)
{
    rcu_read_lock();
}

void probe_unlock(void)
{
    rcu_read_unlock();
}

int probe_deref(void)
{
    return *rcu_dereference(probe_ptr);
}
