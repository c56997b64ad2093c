// Waiting for a helper child process (the trace.dat header probe) without trusting it
// to finish: a child that deadlocks or loops must not hang the command.
#pragma once
#include <sys/types.h>

#include <chrono>

namespace irqflow {

struct ChildResult {
    bool timed_out = false;  // killed with SIGKILL after the deadline
    int status = 0;          // waitpid status, when it ended on its own
};

// Reaps `pid` as soon as it ends (woken by a pidfd; without one, polling with a growing
// back-off, 1 ms → 50 ms) up to `limit`; past it the child is killed and reaped, so no
// zombie is left either way.
ChildResult wait_child(pid_t pid, std::chrono::milliseconds limit);

}  // namespace irqflow
