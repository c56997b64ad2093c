// Where the view is and how it moves: zoom, pan, box zoom, jumps to the next finding,
// injection or EOI, going to a time or a raw record, and the vCPU / vector filter.
// No ImGui here: the window turns input into these calls, and tests call them directly.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

struct ViewRange {
    std::int64_t t0 = 0, t1 = 1;
    double span() const { return static_cast<double>(t1 - t0); }
    std::int64_t at(double frac) const { return t0 + static_cast<std::int64_t>(frac * span()); }
};

class Navigator {
public:
    static constexpr std::int64_t kMinSpan = 1000;  // 1 µs across the window
    Navigator(std::int64_t lo, std::int64_t hi) : lo_(lo), hi_(hi), v_{lo, hi} {}
    const ViewRange& view() const { return v_; }
    void set(std::int64_t t0, std::int64_t t1);
    // `at` and the other fractions are positions across the plot, 0 = left edge.
    void zoom(double factor, double at);
    void pan(double frac);               // > 0 moves the view later by that part of its span
    bool box(double from, double to);    // zoom to the part between two positions; false if too thin to mean it
    void whole() { v_ = {lo_, hi_}; }
    void to_start() { set(lo_, lo_ + (v_.t1 - v_.t0)); }  // same span, at the trace's first event
    void to_end() { set(hi_ - (v_.t1 - v_.t0), hi_); }    // same span, ending at its last
    void centre_on(std::int64_t ts);

private:
    std::int64_t lo_, hi_;
    ViewRange v_;
};

// Which lanes are drawn (in lane order) and which vector the ISR bars, markers, IPI
// arrows, jumps and the event table are restricted to (-1: all).
struct Filter {
    std::vector<bool> lane_shown;
    int vector = -1;
    static Filter all(const Timeline& tl) { return {std::vector<bool>(tl.lanes.size(), true), -1}; }
    bool shows(int lane) const { return lane >= 0 && static_cast<std::size_t>(lane) < lane_shown.size() && lane_shown[static_cast<std::size_t>(lane)]; }
    bool shows_vector(int v) const { return vector < 0 || v == vector; }
    // Row of each lane on screen (-1 when hidden), and how many rows there are.
    std::vector<int> rows() const;
    int row_count() const;
};

// "--vcpu 0,2": the lanes whose vCPU id is listed (in any VM); "--vector 0xec".
// Errors say what was wrong with the text.
std::optional<Filter> parse_filter(const Timeline& tl, std::string_view vcpus, std::string_view vector, std::string& error);

enum class JumpTarget { Finding, Injection, Eoi };
// The first target strictly after (or before) `from` in a shown lane, of the filter's
// vector for injections and EOIs (real and PV EOIs alike).
std::optional<std::int64_t> find_next(const Timeline& tl, const Filter& f, JumpTarget what, std::int64_t from, bool forward);

// The index in trace.events of raw record `record`; nullopt if the trace lacks it.
std::optional<std::size_t> event_of_record(const Trace& trace, std::uint64_t record);
// Time of raw record `record` (the number `irqflow events` and `trace-cmd report`
// count); nullopt past the end.
std::optional<std::int64_t> record_time(const Trace& trace, std::uint64_t record);

// Where "go to" lands: "#1234" is raw record 1234 (its time and event), anything else a
// time (ui/common/time_text.hpp: trace time, or +TIME from the trace's first event).
struct GoToTarget {
    std::int64_t ts;
    std::optional<std::size_t> event;  // index into trace.events
};
std::optional<GoToTarget> go_to_target(const Trace& trace, std::string_view text);

}  // namespace irqflow::gui
