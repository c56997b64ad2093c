// Ring-buffer drops as intervals (replay/README.md, "Lost events are intervals"). The
// capture layer knows where each drop's lost events may start (Trace::drop_window_starts:
// after its CPU's previous event, not at the marker). From there the model may lack
// anything, on any vCPU — a vCPU thread can migrate onto that CPU inside the window, and
// accepts are traced on the sender's CPU — so the replay stops trusting it there.
#pragma once
#include <cstddef>
#include <algorithm>
#include <span>
#include <vector>

namespace irqflow::replay {

class DropWindows {
public:
    explicit DropWindows(std::span<const std::size_t> sorted_starts) : starts_(sorted_starts.begin(), sorted_starts.end()) {}
    // How many drop windows open right before event `i`. Called with increasing i.
    std::size_t opening_before(std::size_t i) {
        std::size_t n = 0;
        while (next_ < starts_.size() && starts_[next_] <= i) ++n, ++next_;
        return n;
    }
    // The next event index where one opens (the engine's quick test), or SIZE_MAX.
    std::size_t next_start() const { return next_ < starts_.size() ? starts_[next_] : static_cast<std::size_t>(-1); }
    std::size_t size() const { return starts_.size(); }
    // A drop a live stream learnt of after the replay began: it opens at `start`, or
    // before the next event if the replay is past that already. Only the windows not
    // yet opened are kept.
    void add(std::size_t start) {
        starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(next_));
        next_ = 0;
        starts_.insert(std::upper_bound(starts_.begin(), starts_.end(), start), start);
    }

private:
    std::vector<std::size_t> starts_;
    std::size_t next_ = 0;
};

}  // namespace irqflow::replay
