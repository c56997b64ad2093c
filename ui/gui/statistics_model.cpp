#include "statistics_model.hpp"

#include <cstdio>
#include <map>
#include <variant>

#include "irqflow/replay/statistics.hpp"

namespace irqflow::gui {

std::vector<StatRow> statistics_rows(const replay::ReplayResult& r) {
    std::vector<StatRow> rows;
    const auto list = replay::statistics();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& s = list[i];
        if (!(s.outputs & replay::kGui) || s.key == "exits_by_reason") continue;
        const auto v = replay::stat_value(r, i);
        std::string text;
        char b[64];
        if (const auto* n = std::get_if<std::uint64_t>(&v)) {
            text = std::to_string(*n);
        } else if (const auto* x = std::get_if<double>(&v)) {
            std::snprintf(b, sizeof b, "%.1f%%", 100.0 * *x);
            text = b;
        } else if (const auto* t = std::get_if<std::string_view>(&v)) {
            text = std::string(*t);
        } else if (const auto* m = std::get_if<const std::map<std::string, std::uint64_t>*>(&v)) {
            for (const auto& [k, c] : **m) text += (text.empty() ? "" : ", ") + k + " " + std::to_string(c);
            if (text.empty()) text = "-";
        } else {
            continue;  // latency percentiles: the latency tab shows them as histograms
        }
        rows.push_back({std::string(s.key), std::string(s.meaning), std::move(text)});
    }
    return rows;
}

StatRow lost_events_row(const Timeline& tl) {
    StatRow row{"lost_events", "events the ring buffer dropped, the gaps they left (hatched in the lanes) and their total length", "none"};
    if (tl.gaps.empty()) return row;
    std::int64_t lost = 0, ns = 0;
    std::size_t unknown = 0;
    for (const auto& g : tl.gaps) {
        if (g.lost >= 0) lost += g.lost;
        else ++unknown;
        ns += g.end - g.start;
    }
    char b[160];
    std::snprintf(b, sizeof b, "%lld in %zu gap%s%s, %.1f ms", static_cast<long long>(lost), tl.gaps.size(), tl.gaps.size() == 1 ? "" : "s",
                  unknown ? (" (" + std::to_string(unknown) + " of unknown size)").c_str() : "", static_cast<double>(ns) / 1e6);
    row.value = b;
    return row;
}

StatRow unsynced_row(const Timeline& tl) {
    StatRow row{"unsynced", "stretches where a vCPU's APIC state was not proven, so its events were not checked (amber under the lane)",
                "none"};
    std::size_t spans = 0;
    std::int64_t ns = 0, lane_ns = 0;
    for (const auto& lane : tl.lanes) {
        spans += lane.unsynced.size();
        for (const auto& sp : lane.unsynced) ns += sp.end - sp.start;
        lane_ns += tl.t1 - tl.t0;
    }
    if (!spans) return row;
    char b[160];
    std::snprintf(b, sizeof b, "%zu stretch%s, %.3f s of vCPU time (%.1f %%)", spans, spans == 1 ? "" : "es", static_cast<double>(ns) / 1e9,
                  lane_ns ? 100.0 * static_cast<double>(ns) / static_cast<double>(lane_ns) : 0.0);
    row.value = b;
    return row;
}

}  // namespace irqflow::gui
