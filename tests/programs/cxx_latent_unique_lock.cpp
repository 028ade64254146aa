// ThreadSanitizer's std::mutex false report: one thread takes m1 then m2
// (std::unique_lock), lets m1 go and takes it again under m2; the other
// threads take one mutex each. One thread made both edges: latent, an INFO
// report at exit, exit status 0, and the report names C++ as written.
// expect: latent-lock-order
// log: SUMMARY: rtdd: latent-lock-order cxx_latent_unique_lock.cpp:
// log: in relock()
// no-log: _ZN
#include <mutex>
#include <thread>

static std::mutex m1, m2;

__attribute__((noinline)) void relock()
{
    std::unique_lock<std::mutex> first(m1);
    std::unique_lock<std::mutex> second(m2);
    first.unlock();
    first.lock();
}

int main()
{
    std::thread a([] { std::lock_guard<std::mutex> g(m1); });
    std::thread b([] { std::lock_guard<std::mutex> g(m2); });
    a.join();
    b.join();
    relock();
    return 0;
}
