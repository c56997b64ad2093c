#include "irqflow/capture/trace.hpp"

#include <stdexcept>

namespace irqflow {

std::uint16_t Trace::intern(std::string_view name) {
    auto it = name_ids_.find(std::string(name));
    if (it != name_ids_.end()) return it->second;
    if (names_.size() >= 0xffff) throw std::runtime_error("more than 65535 distinct event names");
    auto id = static_cast<std::uint16_t>(names_.size());
    names_.emplace_back(name);
    name_ids_.emplace(names_.back(), id);
    return id;
}

void Trace::adopt_names(const Trace& other) {
    if (!names_.empty()) throw std::logic_error("adopt_names into a trace that has names");
    names_ = other.names_;
    name_ids_ = other.name_ids_;
}

std::map<std::string, std::uint64_t> Trace::counts_by_name() const {
    std::vector<std::uint64_t> by_id(names_.size(), 0);
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events.kind(i) != EventKind::Lost) ++by_id[events.name_id(i)];
    std::map<std::string, std::uint64_t> out;
    for (std::size_t i = 0; i < by_id.size(); ++i)
        if (by_id[i]) out[names_[i]] = by_id[i];
    return out;
}

std::uint64_t Trace::lost_events() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events.kind(i) == EventKind::Lost) {
            const std::int64_t lost = events[i].f[slot::lost_count];
            if (lost > 0) n += static_cast<std::uint64_t>(lost);
        }
    return n;
}

std::uint64_t Trace::lost_markers() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < events.size(); ++i) n += events.kind(i) == EventKind::Lost;
    return n;
}

std::uint64_t Trace::records() const { return events.size() - lost_markers(); }

ClockOrder clock_order(std::string_view clock) {
    if (clock == "local" || clock == "perf") return ClockOrder::PerCpu;
    for (std::string_view c : {"global", "counter", "mono", "mono_raw", "boot", "tai", "x86-tsc"})
        if (clock == c) return ClockOrder::CrossCpu;
    return ClockOrder::Unknown;  // not recorded (report text), "uptime" (jiffies), or new
}

}  // namespace irqflow
