#include "irqflow/capture/summary.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow {

void ExitTime::add(std::int64_t ns) {
    if (samples == 0 || ns < min_ns) min_ns = ns;
    if (samples == 0 || ns > max_ns) max_ns = ns;
    ++samples;
    total_ns += ns;
    const double d = static_cast<double>(ns) - mean_ns;
    mean_ns += d / static_cast<double>(samples);
    m2 += d * (static_cast<double>(ns) - mean_ns);
}

double ExitTime::stderr_percent() const {
    if (samples < 2 || mean_ns <= 0) return 0;
    const double var = m2 / static_cast<double>(samples - 1);
    return 100.0 * std::sqrt(var / static_cast<double>(samples)) / mean_ns;
}

static void merge(ExitTime& into, const ExitTime& x) {  // Chan et al.'s parallel combination
    if (x.samples == 0) return;
    if (into.samples == 0) {
        into = x;
        return;
    }
    const double n1 = static_cast<double>(into.samples), n2 = static_cast<double>(x.samples), d = x.mean_ns - into.mean_ns;
    into.m2 += x.m2 + d * d * n1 * n2 / (n1 + n2);
    into.mean_ns += d * n2 / (n1 + n2);
    into.samples += x.samples;
    into.total_ns += x.total_ns;
    into.min_ns = std::min(into.min_ns, x.min_ns);
    into.max_ns = std::max(into.max_ns, x.max_ns);
}

// Counted by small ids as events arrive (name ids, vCPU slots, exit-reason ids), turned
// into named maps once at the end: no string work per event.
Summarizer::Summarizer(const Trace& skeleton) : t_(skeleton) {
    for (const auto& vm : t_.vms)
        for (const auto& v : vm.vcpus) {
            index_[vm_vcpu_key(vm.id, v.id)] = s_.vcpus.size();
            s_.vcpus.push_back({vm.id, v.id, v.tid, v.apic, v.apic_from_trace, 0, {}, {}, {}});
        }
    exits_.resize(s_.vcpus.size());
    open_.resize(s_.vcpus.size());
    times_.resize(s_.vcpus.size());
    names_ = t_.name_count();
    by_name_.assign(s_.vcpus.size() * names_, 0);
}

void Summarizer::add(const Event& e) {
    if (e.kind == EventKind::Lost) {
        for (auto& o : open_) o = {};  // what happened in the gap is unknown: no time for those exits
        ++s_.lost_gaps;
        const std::int64_t n = e.f[slot::lost_count];
        if (n > 0) s_.lost_events += static_cast<std::uint64_t>(n);
        else ++s_.lost_gaps_unknown;
        return;
    }
    ++s_.records;
    if (e.name_id >= by_name_total_.size()) by_name_total_.resize(std::size_t{e.name_id} + 1, 0);
    ++by_name_total_[e.name_id];
    const std::int64_t ts = e.ts.value();
    if (s_.records == 1) s_.first_ts = ts;
    s_.last_ts = std::max(s_.last_ts, ts);
    std::size_t reason = SIZE_MAX;
    if (e.kind == EventKind::Exit) {
        reason = reasons_.of(e);
        count_reason(exits_total_, static_cast<ExitReasonIds::Id>(reason));
    }
    const std::uint64_t k = vm_vcpu_key(e.vm, e.vcpu);
    if (k != last_key_) {
        auto it = index_.find(k);
        last_key_ = k;
        last_slot_ = it == index_.end() ? SIZE_MAX : it->second;
    }
    if (last_slot_ == SIZE_MAX) {
        if (e.kind != EventKind::Other) ++s_.unattributed;
        return;
    }
    ++s_.vcpus[last_slot_].events;
    if (e.name_id < names_) ++by_name_[last_slot_ * names_ + e.name_id];
    else ++by_late_name_[last_slot_ * kMaxNames + e.name_id];  // interned after the skeleton (not by the readers)
    if (reason != SIZE_MAX) {
        auto& x = exits_[last_slot_];
        if (x.size() <= reason) x.resize(reason + 1, 0);
        ++x[reason];
        open_[last_slot_] = {reason, ts};
    } else if (e.kind == EventKind::Entry) {
        OpenExit& o = open_[last_slot_];
        if (o.reason != SIZE_MAX && ts >= o.ts) {
            auto& t = times_[last_slot_];
            if (t.size() <= o.reason) t.resize(o.reason + 1);
            t[o.reason].add(ts - o.ts);
        }
        o = {};
    }
}

TraceSummary Summarizer::finish() {
    for (std::size_t n = 0; n < by_name_total_.size(); ++n)
        if (by_name_total_[n]) s_.events[t_.name(static_cast<std::uint16_t>(n))] = by_name_total_[n];
    s_.exits_by_reason = reasons_.named(exits_total_);
    for (std::size_t cell = 0; cell < by_name_.size(); ++cell)
        if (by_name_[cell]) s_.vcpus[cell / names_].by_name[t_.name(static_cast<std::uint16_t>(cell % names_))] = by_name_[cell];
    for (const auto& [cell, count] : by_late_name_)
        s_.vcpus[cell / kMaxNames].by_name[t_.name(static_cast<std::uint16_t>(cell % kMaxNames))] = count;
    for (std::size_t v = 0; v < s_.vcpus.size(); ++v) s_.vcpus[v].exits_by_reason = reasons_.named(exits_[v]);
    for (std::size_t v = 0; v < s_.vcpus.size(); ++v)
        for (std::size_t r = 0; r < times_[v].size(); ++r)
            if (times_[v][r].samples) {
                const std::string& name = reasons_.name(static_cast<ExitReasonIds::Id>(r));
                merge(s_.vcpus[v].exit_time_by_reason[name], times_[v][r]);
                merge(s_.exit_time_by_reason[name], times_[v][r]);
            }
    return std::move(s_);
}

TraceSummary summarize(const Trace& t) {
    Summarizer s(t);
    t.events.for_each([&s](const Event& e) { s.add(e); });
    return s.finish();
}

}  // namespace irqflow
