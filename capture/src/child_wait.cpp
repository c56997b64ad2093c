#include "child_wait.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <thread>

namespace irqflow {

namespace {
int reap(pid_t pid, int flags, int& status) {
    int r;
    while ((r = waitpid(pid, &status, flags)) < 0 && errno == EINTR) {}
    return r;
}
}  // namespace

ChildResult wait_child(pid_t pid, std::chrono::milliseconds limit) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + limit;
    auto pause = std::chrono::milliseconds(1);
    ChildResult r;
    for (;;) {
        const int got = reap(pid, WNOHANG, r.status);
        if (got != 0) return r;  // ended (or not our child any more: nothing to wait for)
        const auto now = clock::now();
        if (now >= deadline) break;
        std::this_thread::sleep_for(std::min<clock::duration>(pause, deadline - now));
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    kill(pid, SIGKILL);
    reap(pid, 0, r.status);
    r.timed_out = true;
    return r;
}

}  // namespace irqflow
