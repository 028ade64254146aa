// A std::mutex inversion, the halves 200 ms apart: confirmed when steered.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex accounts, audit;
static long balance, entries;

__attribute__((noinline)) static void transfer()
{
    std::lock_guard<std::mutex> a(accounts);
    std::lock_guard<std::mutex> b(audit);
    balance++, entries++;
}

__attribute__((noinline)) static void record_audit()
{
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::unique_lock<std::mutex> b(audit);
    std::lock_guard<std::mutex> a(accounts);
    entries++;
}

int main()
{
    std::thread t1(transfer), t2(record_audit);
    t1.join();
    t2.join();
    std::printf("entries %ld\n", entries);
    return 0;
}
