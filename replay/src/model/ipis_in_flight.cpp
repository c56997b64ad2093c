#include "ipis_in_flight.hpp"

#include <algorithm>

namespace irqflow::replay {

IpiSend& IpisInFlight::add(Tid sender, IpiSend send) {
    auto& list = by_sender_[sender.value()];
    list.push_back(std::move(send));
    ++in_flight_;
    return list.back();
}

void IpisInFlight::received_slow(Tid thread, int vector, int delivery_mode, std::uint32_t apic) {
    auto it = by_sender_.find(thread.value());
    if (it == by_sender_.end()) return;
    for (auto& s : it->second)
        if (s.vector == vector && s.delivery_mode == delivery_mode) s.received.insert(apic);
}

void IpisInFlight::complete_slow(Tid sender, std::vector<IpiSend>& out) {
    auto it = by_sender_.find(sender.value());
    if (it == by_sender_.end()) return;
    in_flight_ -= it->second.size();
    for (auto& s : it->second) out.push_back(std::move(s));
    by_sender_.erase(it);
}

void IpisInFlight::complete_all(std::vector<IpiSend>& out) {
    std::vector<std::int32_t> senders;
    for (const auto& [tid, list] : by_sender_) senders.push_back(tid);
    std::sort(senders.begin(), senders.end());
    for (auto tid : senders) complete_slow(Tid(tid), out);
}

}  // namespace irqflow::replay
