// Where each ring-buffer drop's lost events may start (capture/README.md, "Lost events
// are intervals"): trace-cmd marks a drop on the first event a CPU recorded after it,
// so the lost events lie between that CPU's previous event and the marker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "irqflow/capture/event.hpp"

namespace irqflow {

class Trace;

// Fed every event in order; per Lost marker, the index right after its CPU's previous
// event (0 when the CPU had none, or an id no host has).
class DropWindowFinder {
public:
    void next(const Event& e) { next(e.kind, e.cpu); }
    // (Inline: the attribution pass asks it of every record, and a call was 3 % of `check`.)
    [[gnu::always_inline]] void next(EventKind kind, HostCpu host_cpu) {
        const std::int32_t cpu = host_cpu.value();
        const bool known = cpu >= 0 && cpu < kMaxCpu;
        const auto c = static_cast<std::size_t>(cpu);
        if (kind == EventKind::Lost) {
            const std::size_t start = known && c < after_last_.size() ? after_last_[c] : 0;
            if (known && start == 0) open_.emplace_back(starts_.size(), cpu);
            starts_.push_back(start);
        } else if (known) {
            if (c >= after_last_.size()) after_last_.resize(c + 1, 0);
            after_last_[c] = i_ + 1;
        }
        ++i_;
    }
    // The starts, sorted (Trace::drop_window_starts).
    std::vector<std::size_t> take();
    // Goes on with what `later` found in the events right after these (a trace read in
    // parts): its indices follow these, and a drop on a CPU that had no event in its
    // part starts after that CPU's last event here.
    void append(const DropWindowFinder& later);

private:
    static constexpr std::int32_t kMaxCpu = 1 << 16;
    std::vector<std::size_t> after_last_;  // per host CPU: index + 1 of its last event so far
    std::vector<std::size_t> starts_;
    std::vector<std::pair<std::size_t, std::int32_t>> open_;  // starts_ 0 because their CPU had no event yet: (index, CPU)
    std::size_t i_ = 0;
};

// Fills trace.drop_window_starts from its events (attribute() does it in its own pass;
// loaders that do not attribute call this).
void find_drop_windows(Trace& trace);

}  // namespace irqflow
