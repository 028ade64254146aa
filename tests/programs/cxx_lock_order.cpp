// A true lock-order cycle in C++: one thread takes accounts then audit
// (std::unique_lock), another audit then accounts (std::lock_guard), one
// after the other. The report reads like C++: demangled frames, and the
// SUMMARY, sites and "first used at" name this file, not the C++
// library's headers.
// expect: lock-order-inversion
// log: SUMMARY: rtdd: lock-order-inversion cxx_lock_order.cpp:30 in record_audit()
// log: record_audit()
// log: std::mutex::lock()
// log: first used at cxx_lock_order.cpp:
// log: taken at cxx_lock_order.cpp:
// no-log: _ZN
// no-log: _ZL
// no-log: gthr-default.h:749 in
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
