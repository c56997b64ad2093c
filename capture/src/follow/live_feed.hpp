// The part every live source shares (capture/README.md, "Following a stream"): events
// enter a look-ahead window as the source yields them, in order, and teach the live
// attribution; they leave it attributed, when the window is full or has held them long
// enough. Report text on a pipe (Follow) and ring-buffer pages of a recording
// (RingFollow) differ only in how they make events.
#pragma once
#include <cstdint>
#include <deque>
#include <limits>

#include "irqflow/capture/follow.hpp"
#include "live_attribution.hpp"

namespace irqflow {

class LiveFeed {
public:
    LiveFeed(Trace& t, const FollowOptions& options) : options_(options), attribution_(t) {}
    // An event the source made: learnt from at once (what it teaches goes to `h` before
    // the events it concerns), attributed when it leaves.
    void arrived(const Event& e, const LiveHandlers& h);
    // Hands over what has to leave the window (FollowOptions::hold): everything when
    // `all` or when the source's input `stalled`, else what the input has passed by
    // `hold` of trace time — the newest event's time, or `delivered` when the source
    // knows every event before it is in (a read round's start).
    void release(bool all, const LiveHandlers& h, TimestampNs delivered = TimestampNs(INT64_MIN), bool stalled = false);
    // The latest event time that arrived.
    TimestampNs newest() const { return newest_; }
    // The source ended: the attribution's last word (before the final release).
    void end() { attribution_.end(); }
    std::uint64_t events() const { return handed_; }
    std::uint64_t lost_events() const { return lost_; }

private:
    FollowOptions options_;
    LiveAttribution attribution_;
    std::deque<Event> window_;
    TimestampNs newest_{INT64_MIN};  // the latest event time seen
    std::uint64_t handed_ = 0, lost_ = 0;
};

}  // namespace irqflow
