// Ring-buffer drops as intervals (replay/README.md, "Lost events are intervals"). trace-cmd marks a
// drop on the first event a host CPU recorded after it; the events it lost lie between
// that CPU's previous recorded event and the marker. From the start of that interval
// the model may lack anything, on any vCPU (a vCPU thread can migrate onto that CPU
// inside it, and accepts are traced on the sender's CPU), so the replay must stop
// trusting it there — not only at the marker.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "irqflow/capture/event.hpp"

namespace irqflow::replay {

class DropWindows {
public:
    explicit DropWindows(std::span<const Event> events);
    // How many drop windows open right before events[i]. Called with increasing i.
    std::size_t opening_before(std::size_t i) {
        std::size_t n = 0;
        while (next_ < starts_.size() && starts_[next_] <= i) ++n, ++next_;
        return n;
    }
    std::size_t size() const { return starts_.size(); }

private:
    std::vector<std::size_t> starts_;  // per Lost marker: index of the first event after its CPU's previous one; sorted
    std::size_t next_ = 0;
};

}  // namespace irqflow::replay
