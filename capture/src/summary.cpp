#include "irqflow/capture/summary.hpp"

#include <algorithm>

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow {

TraceSummary summarize(const Trace& t) {
    TraceSummary s;
    s.events = t.counts_by_name();
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> index;
    for (const auto& vm : t.vms)
        for (const auto& v : vm.vcpus) {
            index[{vm.id.value(), v.id.value()}] = s.vcpus.size();
            s.vcpus.push_back({vm.id, v.id, v.tid, v.apic, v.apic_from_trace, 0, {}, {}});
        }
    bool first = true;
    for (const auto& e : t.events) {
        if (e.kind == EventKind::Lost) {
            ++s.lost_gaps;
            auto n = e.f[slot::lost_count];
            if (n > 0) s.lost_events += static_cast<std::uint64_t>(n);
            else ++s.lost_gaps_unknown;
            continue;
        }
        ++s.records;
        if (first) { s.first_ts = e.ts.value(); first = false; }
        s.last_ts = std::max(s.last_ts, e.ts.value());
        const bool exit = e.kind == EventKind::Exit;
        std::string reason = exit ? exit_reason_key(e) : std::string();
        if (exit) ++s.exits_by_reason[reason];
        auto it = index.find({e.vm.value(), e.vcpu.value()});
        if (it == index.end()) {
            if (e.kind != EventKind::Other) ++s.unattributed;
            continue;
        }
        auto& v = s.vcpus[it->second];
        ++v.events;
        ++v.by_name[t.name(e.name_id)];
        if (exit) ++v.exits_by_reason[reason];
    }
    return s;
}

}  // namespace irqflow
