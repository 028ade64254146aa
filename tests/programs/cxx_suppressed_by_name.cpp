// Suppressions match C++ functions by the names reports print (demangled):
// the cycle of cxx_lock_order, silenced by one line naming record_audit().
// suppress: lock-order-inversion:record_audit()
// expect: none
// log: 0 reports, 1 suppressed
#include <mutex>
#include <thread>

static std::mutex accounts, audit;
static long balance, entries;

__attribute__((noinline)) void transfer()
{
    std::unique_lock<std::mutex> a(accounts);
    std::lock_guard<std::mutex> b(audit);
    balance++, entries++;
}
__attribute__((noinline)) void record_audit()
{
    std::lock_guard<std::mutex> b(audit);
    std::lock_guard<std::mutex> a(accounts);
    entries++;
}

int main()
{
    std::thread t1(transfer);
    t1.join();
    std::thread t2(record_audit);
    t2.join();
    return 0;
}
