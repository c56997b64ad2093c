#include "child_wait.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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

// A descriptor that polls readable when `pid` exits (Linux 5.3+), or -1.
int pid_fd(pid_t pid) {
#ifdef SYS_pidfd_open
    return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    return -1;
#endif
}

}  // namespace

ChildResult wait_child(pid_t pid, std::chrono::milliseconds limit) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + limit;
    ChildResult r;
    // Woken the moment the child ends: a probe of a few milliseconds costs a few
    // milliseconds, not the next step of a back-off (fuzz_dat runs one per input).
    if (const int fd = pid_fd(pid); fd >= 0) {
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
            if (left <= 0) break;
            pollfd p{fd, POLLIN, 0};
            const int n = poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
            if (n < 0 && errno != EINTR) break;
            if (n > 0 && reap(pid, WNOHANG, r.status) != 0) {
                close(fd);
                return r;
            }
        }
        close(fd);
        if (reap(pid, WNOHANG, r.status) != 0) return r;  // ended right at the deadline
    } else {
        auto pause = std::chrono::milliseconds(1);
        for (;;) {
            if (reap(pid, WNOHANG, r.status) != 0) return r;  // ended (or not our child any more: nothing to wait for)
            const auto now = clock::now();
            if (now >= deadline) break;
            std::this_thread::sleep_for(std::min<clock::duration>(pause, deadline - now));
            pause = std::min(pause * 2, std::chrono::milliseconds(50));
        }
    }
    kill(pid, SIGKILL);
    reap(pid, 0, r.status);
    r.timed_out = true;
    return r;
}

}  // namespace irqflow
