// A C++ program: std::thread, std::mutex, std::lock_guard, containers.
// expect: none
#include <mutex>
#include <thread>
#include <vector>
#include <map>
#include <string>

int main()
{
    std::mutex m;
    std::map<int, std::string> table;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; i++) {
                std::lock_guard<std::mutex> g(m);
                table[t * 10000 + i] = std::to_string(i);
            }
        });
    for (auto &th : threads)
        th.join();
    try {
        throw std::runtime_error("exceptions unwind through the runtime");
    } catch (const std::exception &) {
    }
    return table.size() == 8000 ? 0 : 1;
}
