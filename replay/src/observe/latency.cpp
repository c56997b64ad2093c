#include "latency.hpp"

namespace irqflow::replay {

void LatencySamples::finish(ReplayStats& st) {
    for (int vec = 0; vec < 256; ++vec) {
        const auto u = static_cast<std::size_t>(vec);
        if (!a2i_[u].empty()) st.accept_to_inject[vec] = a2i_[u].summary();
        if (!i2e_[u].empty()) st.inject_to_eoi[vec] = i2e_[u].summary();
    }
}

}  // namespace irqflow::replay
