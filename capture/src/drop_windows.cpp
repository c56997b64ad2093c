#include "irqflow/capture/drop_windows.hpp"

#include <algorithm>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

std::vector<std::size_t> DropWindowFinder::take() {
    std::sort(starts_.begin(), starts_.end());
    std::vector<std::size_t> taken = std::move(starts_);
    starts_.clear();  // taken: a live stream takes each drop's start as it comes
    open_.clear();
    return taken;
}

void DropWindowFinder::append(const DropWindowFinder& later) {
    std::vector<std::size_t> starts = later.starts_;
    for (std::size_t& s : starts)  // after an event of `later`'s: shifted past these events
        if (s != 0) s += i_;
    for (const auto& [k, cpu] : later.open_) {
        const auto c = static_cast<std::size_t>(cpu);
        if (c < after_last_.size() && after_last_[c] != 0) starts[k] = after_last_[c];
        else open_.emplace_back(starts_.size() + k, cpu);
    }
    starts_.insert(starts_.end(), starts.begin(), starts.end());
    if (after_last_.size() < later.after_last_.size()) after_last_.resize(later.after_last_.size(), 0);
    for (std::size_t c = 0; c < later.after_last_.size(); ++c)
        if (later.after_last_[c] != 0) after_last_[c] = later.after_last_[c] + i_;
    i_ += later.i_;
}

void find_drop_windows(Trace& trace) {
    DropWindowFinder f;
    for (const auto& e : trace.events) f.next(e);
    trace.drop_window_starts = f.take();
}

}  // namespace irqflow
