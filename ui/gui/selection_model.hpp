// Markers A and B and what lies between them: the statistics of a selected range, as
// Perfetto's area selection gives them (exits by reason, time per state, injections,
// EOIs, latencies, IPIs, findings), for the shown lanes and the vector filter. No ImGui.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "navigation_model.hpp"
#include "session.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

// A distribution of latencies in ns, as the selection tab prints it.
struct LatencySummary {
    std::size_t samples = 0;
    std::int64_t p50 = 0, p99 = 0, max = 0;
};
LatencySummary summarize(std::vector<std::int64_t> samples);

struct RangeStats {
    std::int64_t t0 = 0, t1 = 0;  // the range, t0 <= t1
    std::uint64_t events = 0;     // of the shown lanes' vCPUs
    std::uint64_t exits = 0;
    std::map<std::string, std::uint64_t> exits_by_reason;  // exit_reason_key, as the statistics tab
    std::array<std::int64_t, 3> time_in_state{};             // guest, host, halted, summed over the shown lanes
    std::uint64_t injections = 0, real_eois = 0, pv_eois = 0;  // of the vector filter
    std::uint64_t ipis = 0;                                   // sends between shown lanes
    // interrupts injected in the range (accept→inject) and EOI'd in it (inject→EOI)
    LatencySummary accept_to_inject, inject_to_eoi;
    std::map<std::string, std::uint64_t> findings_by_rule;  // on the shown lanes, or on no vCPU
};

// Everything in [min(a, b), max(a, b)] (ends included).
RangeStats range_stats(const Session& s, const LaneLookup& lanes, const Filter& f, std::int64_t a, std::int64_t b);

}  // namespace irqflow::gui
