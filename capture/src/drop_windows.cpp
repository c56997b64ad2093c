#include "irqflow/capture/drop_windows.hpp"

#include <algorithm>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

std::vector<std::size_t> DropWindowFinder::take() {
    std::sort(starts_.begin(), starts_.end());
    std::vector<std::size_t> taken = std::move(starts_);
    starts_.clear();  // taken: a live stream takes each drop's start as it comes
    return taken;
}

void find_drop_windows(Trace& trace) {
    DropWindowFinder f;
    for (const auto& e : trace.events) f.next(e);
    trace.drop_window_starts = f.take();
}

}  // namespace irqflow
