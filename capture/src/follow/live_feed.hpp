// The part every live source shares (capture/README.md, "Following a stream"): events
// enter a look-ahead window as the source yields them, in order, and teach the live
// attribution; they leave it attributed, when the window is full or has held them long
// enough. Report text on a pipe (Follow) and ring-buffer pages of a recording
// (RingFollow) differ only in how they make events.
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>

#include "irqflow/capture/follow.hpp"
#include "live_attribution.hpp"

namespace irqflow {

class LiveFeed {
public:
    using Clock = std::chrono::steady_clock;
    LiveFeed(Trace& t, const FollowOptions& options) : options_(options), attribution_(t) {}
    // An event the source made, at wall time `now`: learnt from at once (what it teaches
    // goes to `h` before the events it concerns), attributed when it leaves.
    void arrived(const Event& e, Clock::time_point now, const LiveHandlers& h);
    // Hands over what has to leave the window by `now` (everything when `all`).
    void release(bool all, Clock::time_point now, const LiveHandlers& h);
    // The source ended: the attribution's last word (before the final release).
    void end() { attribution_.end(); }
    std::uint64_t events() const { return handed_; }
    std::uint64_t lost_events() const { return lost_; }

private:
    struct Held {
        Event e;
        Clock::time_point arrived;
    };
    FollowOptions options_;
    LiveAttribution attribution_;
    std::deque<Held> window_;
    std::uint64_t handed_ = 0, lost_ = 0;
};

}  // namespace irqflow
