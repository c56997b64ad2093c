// Following a stream (capture/README.md, "Following a stream"): report text arriving on
// a pipe, a FIFO or standard input — what `trace-cmd stream -e kvm` or `perf script`
// write — read as it comes and handed over event by event, attributed, with what was
// learnt about the VMs and the ring-buffer drops before the events it concerns. Memory
// is per thread, vCPU and look-ahead window, never per event.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "irqflow/capture/readers.hpp"

namespace irqflow {

class LiveFeed;
class TextLines;

struct FollowOptions {
    // Events learnt from before they are attributed and handed over: what lets an
    // accept find a vCPU whose thread shows itself a little later. An event leaves the
    // window when it holds more than `lookahead_events`, once the input reached `hold`
    // of trace time past it, or when no event came for `hold` of wall time (a stalled
    // input: what is there goes out). Trace time, not the wall time an event waited,
    // so what the window holds does not depend on how fast the checker runs: a slow
    // or loaded host attributes as a fast one. In a live stream trace time runs with
    // the wall clock, so an alert is still late by about `hold`.
    std::size_t lookahead_events = 16384;
    std::chrono::milliseconds hold{200};
    // No input for this long: the record being assembled is complete as it is.
    std::chrono::milliseconds idle{50};
};

// How far a live source is, for what waits on it downstream (a finding's settling): the
// events handed over and lost so far, the trace time up to which the input is in, and
// whether the input has stalled (no data for FollowOptions::hold of wall time).
struct LiveProgress {
    std::uint64_t events = 0, lost = 0;
    TimestampNs delivered{INT64_MIN};
    bool stalled = false;
};

// What a live source hands over, in order: the vCPUs and drops it learns before the
// events they concern, then each event attributed.
struct LiveHandlers {
    std::function<void(VmId, const VcpuInfo&)> vcpu;  // a vCPU became known, or changed
    std::function<void(std::size_t)> drop_window;     // a drop's lost events may start at this event index
    EventSink event;                                   // each event, attributed, in input order
};

class Follow {
public:
    using Handlers = LiveHandlers;
    // `shown`: the input's name in messages ("<stdin>"); `fd` is read, not closed.
    Follow(std::string shown, int fd, const FollowOptions& options = {});
    ~Follow();
    Follow(const Follow&) = delete;
    Follow& operator=(const Follow&) = delete;
    // Reads what the input has, waiting at most `wait` for it, and hands over what
    // leaves the look-ahead. False once the input has ended and everything went out.
    // Bad input throws InputError naming the line.
    bool step(std::chrono::milliseconds wait, const Handlers& h);
    // Meta, names, VMs and vCPUs so far, thread names, the record → line runs.
    const Trace& trace() const { return t_; }
    std::uint64_t events() const;
    std::uint64_t lost_events() const;
    LiveProgress progress() const;

private:
    bool stalled() const { return now_ - last_input_ >= options_.hold; }

    std::string shown_;
    int fd_;
    FollowOptions options_;
    Trace t_;
    std::unique_ptr<LiveFeed> feed_;
    std::unique_ptr<TextLines> text_;
    const Handlers* h_ = nullptr;
    std::string partial_;  // a line not ended yet
    std::vector<char> buffer_;
    std::uint64_t lineno_ = 0;
    std::chrono::steady_clock::time_point now_, last_input_;
    bool ended_ = false, idle_ = false;
};

}  // namespace irqflow
