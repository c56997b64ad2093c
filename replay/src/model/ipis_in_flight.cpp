#include "ipis_in_flight.hpp"

#include <algorithm>

namespace irqflow::replay {

void IpisInFlight::add_sender(Tid thread, VcpuSlot slot) {
    if (static_cast<std::size_t>(slot.value()) >= by_sender_.size()) by_sender_.resize(static_cast<std::size_t>(slot.value()) + 1);
    std::erase_if(by_tid_, [slot](const auto& q) { return q.second == slot; });  // a vCPU sends from one thread
    const std::pair p{thread.value(), slot};
    // after the equal tids already there: the first vCPU of a thread stays first
    by_tid_.insert(std::upper_bound(by_tid_.begin(), by_tid_.end(), p, [](const auto& a, const auto& b) { return a.first < b.first; }), p);
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
