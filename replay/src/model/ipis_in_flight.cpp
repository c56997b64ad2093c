#include "ipis_in_flight.hpp"

#include <algorithm>

namespace irqflow::replay {

IpisInFlight::IpisInFlight(const std::vector<Tid>& threads) : by_sender_(threads.size()) {
    for (std::size_t i = 0; i < threads.size(); ++i) by_tid_.push_back({threads[i].value(), VcpuSlot(static_cast<std::int32_t>(i))});
    std::stable_sort(by_tid_.begin(), by_tid_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

void IpisInFlight::received_slow(Tid thread, int vector, int delivery_mode, std::uint32_t apic, std::uint64_t record) {
    auto it = std::lower_bound(by_tid_.begin(), by_tid_.end(), thread.value(), [](const auto& p, std::int32_t t) { return p.first < t; });
    for (; it != by_tid_.end() && it->first == thread.value(); ++it)
        for (auto& s : by_sender_[static_cast<std::size_t>(it->second.value())])
            if (s.vector == vector && s.delivery_mode == delivery_mode) {
                s.received.insert(apic);
                s.accepts.push_back({apic, record});
            }
}

void IpisInFlight::complete_all(std::vector<IpiSend>& out) {
    for (const auto& [tid, slot] : by_tid_) {
        auto& list = by_sender_[static_cast<std::size_t>(slot.value())];
        for (auto& s : list) out.push_back(std::move(s));
        list.clear();
    }
    in_flight_ = 0;
}

void IpisInFlight::drop_all() {
    for (auto& list : by_sender_) list.clear();
    in_flight_ = 0;
}

}  // namespace irqflow::replay
