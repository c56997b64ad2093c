#include "irqflow/capture/summary.hpp"

#include <algorithm>
#include <unordered_map>

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow {

// Counted by small ids in the pass (name ids, vCPU slots, exit-reason keys interned by
// (isa, code)), turned into named maps once at the end: no string work per event.
TraceSummary summarize(const Trace& t) {
    TraceSummary s;
    s.events = t.counts_by_name();
    std::unordered_map<std::uint64_t, std::size_t> index;  // (vm, vcpu) → slot
    auto key = [](VmId vm, VcpuId vcpu) {
        return (std::uint64_t{static_cast<std::uint32_t>(vm.value())} << 32) | static_cast<std::uint32_t>(vcpu.value());
    };
    for (const auto& vm : t.vms)
        for (const auto& v : vm.vcpus) {
            index[key(vm.id, v.id)] = s.vcpus.size();
            s.vcpus.push_back({vm.id, v.id, v.tid, v.apic, v.apic_from_trace, 0, {}, {}});
        }
    const std::size_t names = t.name_count();
    std::vector<std::uint64_t> by_name(s.vcpus.size() * names, 0);
    std::vector<std::string> reasons;                            // interned exit-reason keys
    std::unordered_map<std::uint64_t, std::size_t> reason_ids;   // (isa, code or "none") → reasons index
    std::unordered_map<std::string, std::size_t> reason_by_text;  // the rest (corrupt codes)
    std::vector<std::uint64_t> exits_total;                      // by reason id
    std::vector<std::vector<std::uint64_t>> exits(s.vcpus.size());  // [slot][reason id]
    std::uint64_t last_key = UINT64_MAX;
    std::size_t last_slot = SIZE_MAX;
    bool first = true;
    const EventStore& ev = t.events;
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const EventKind kind = ev.kind(i);
        if (kind == EventKind::Lost) {
            ++s.lost_gaps;
            const std::int64_t n = ev[i].f[slot::lost_count];
            if (n > 0) s.lost_events += static_cast<std::uint64_t>(n);
            else ++s.lost_gaps_unknown;
            continue;
        }
        ++s.records;
        const std::int64_t ts = ev.ts(i).value();
        if (first) { s.first_ts = ts; first = false; }
        s.last_ts = std::max(s.last_ts, ts);
        std::size_t reason = SIZE_MAX;
        if (kind == EventKind::Exit) {
            const Event e = ev[i];
            const auto code = e.get(slot::exit_reason);
            const std::int64_t isa = e.get(slot::exit_isa).value_or(kIsaVmx);
            // (isa, code) packed when both are in range (every real one); others by their key text
            const bool packable = !code || (*code >= 0 && *code < (std::int64_t{1} << 40) && isa >= 0 && isa < (1 << 20));
            if (packable) {
                const std::uint64_t rk = code ? (static_cast<std::uint64_t>(isa) << 40) | static_cast<std::uint64_t>(*code) : UINT64_MAX;
                auto [it, added] = reason_ids.try_emplace(rk, reasons.size());
                if (added) reasons.push_back(exit_reason_key(code, isa));
                reason = it->second;
            } else {
                auto [it, added] = reason_by_text.try_emplace(exit_reason_key(code, isa), reasons.size());
                if (added) reasons.push_back(it->first);
                reason = it->second;
            }
            if (exits_total.size() < reasons.size()) exits_total.resize(reasons.size(), 0);
            ++exits_total[reason];
        }
        const std::uint64_t k = key(ev.vm(i), ev.vcpu(i));
        if (k != last_key) {
            auto it = index.find(k);
            last_key = k;
            last_slot = it == index.end() ? SIZE_MAX : it->second;
        }
        if (last_slot == SIZE_MAX) {
            if (kind != EventKind::Other) ++s.unattributed;
            continue;
        }
        ++s.vcpus[last_slot].events;
        ++by_name[last_slot * names + ev.name_id(i)];
        if (reason != SIZE_MAX) {
            auto& e = exits[last_slot];
            if (e.size() <= reason) e.resize(reason + 1, 0);
            ++e[reason];
        }
    }
    for (std::size_t r = 0; r < reasons.size(); ++r) s.exits_by_reason[reasons[r]] += exits_total[r];
    for (std::size_t v = 0; v < s.vcpus.size(); ++v) {
        for (std::size_t n = 0; n < names; ++n)
            if (by_name[v * names + n]) s.vcpus[v].by_name[t.name(static_cast<std::uint16_t>(n))] = by_name[v * names + n];
        for (std::size_t r = 0; r < exits[v].size(); ++r)
            if (exits[v][r]) s.vcpus[v].exits_by_reason[reasons[r]] += exits[v][r];
    }
    return s;
}

}  // namespace irqflow
