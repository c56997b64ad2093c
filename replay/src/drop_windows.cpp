#include "drop_windows.hpp"

#include <algorithm>

namespace irqflow::replay {

DropWindows::DropWindows(std::span<const Event> events) {
    constexpr std::int32_t kMaxCpu = 1 << 16;  // beyond any host; such a CPU id is not tracked
    // per host CPU: index + 1 of its last recorded event so far (0: none yet)
    std::vector<std::size_t> after_last;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        const std::int32_t cpu = e.cpu.value();
        const bool known = cpu >= 0 && cpu < kMaxCpu;
        if (e.kind == EventKind::Lost) {
            // a CPU with no earlier event (or none we can name): the loss may lie anywhere before the marker
            starts_.push_back(known && static_cast<std::size_t>(cpu) < after_last.size() ? after_last[static_cast<std::size_t>(cpu)] : 0);
        } else if (known) {
            if (static_cast<std::size_t>(cpu) >= after_last.size()) after_last.resize(static_cast<std::size_t>(cpu) + 1, 0);
            after_last[static_cast<std::size_t>(cpu)] = i + 1;
        }
    }
    std::sort(starts_.begin(), starts_.end());
}

}  // namespace irqflow::replay
