// What the panels show, computed without ImGui: latency histograms and the events of
// the visible range under the current filter.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"
#include "navigation.hpp"
#include "timeline.hpp"

namespace irqflow::gui {

// Lane of each (vm, vcpu) the trace attributes events to; -1 for host-only events.
class LaneLookup {
public:
    explicit LaneLookup(const Timeline& tl);
    int operator()(VmId vm, VcpuId vcpu) const;

private:
    std::vector<std::vector<int>> by_vm_;  // [vm][vcpu] → lane
};

// Latencies in power-of-two buckets: bucket k counts samples in [2^k, 2^(k+1)) ns.
struct LatencyHistogram {
    static constexpr int kBuckets = 36;  // up to ~68 s
    std::array<std::uint64_t, kBuckets> count{};
    std::uint64_t samples = 0;
    int first = kBuckets, last = -1;  // non-empty bucket range
};
enum class LatencyStage { AcceptToInject, InjectToEoi };
LatencyHistogram latency_histogram(const replay::ReplayResult& r, const LaneLookup& lanes, const Filter& f, LatencyStage stage);

// The interrupt that holds `vector` in service on a vCPU at `ts` (its accept, injection
// and EOI records: what the inspector shows for a clicked ISR bit); null if none.
// The set's vectors as text, highest first as the APIC serves them ("0xec 0x22"), or "none".
std::string vector_list(const replay::VectorSet& v);

const replay::InterruptRecord* interrupt_in_service(const replay::ReplayResult& r, VmId vm, VcpuId vcpu, int vector, std::int64_t ts);

// The replay's statistics the GUI shows (replay's statistics list, kGui), as text: counts
// as numbers, ratios as percentages, name → count maps as "name count, …". Exits by
// reason are left to the per-vCPU exit table.
struct StatRow {
    std::string key, meaning, value;
};
std::vector<StatRow> statistics_rows(const replay::ReplayResult& r);
// The statistics tab's first row: the events lost, in how many gaps, and how long they
// left the trace blind ("276 in 1 gap, 5.3 ms"; "none").
StatRow lost_events_row(const Timeline& tl);
// The second row: how many unsynced stretches the lanes have and how much of the vCPUs'
// time they cover ("12 stretches, 1.234 s of vCPU time (3.1 %)"; "none").
StatRow unsynced_row(const Timeline& tl);

// The findings tab's tree: root findings in order, each with its follow-ons (the findings
// whose caused_by names it, replay/README.md "Recovery"), as indices into r.findings.
struct FindingGroup {
    std::size_t root = 0;
    std::vector<std::size_t> follow_ons;
};
std::vector<FindingGroup> finding_groups(const replay::ReplayResult& r);

// Where a click on a diagnosis puts the timeline: the view [t0, t1] around the records
// the explanation names, markers A and B on its first and last.
struct DiagnosisWindow {
    std::int64_t t0, t1, mark_a, mark_b;
};
DiagnosisWindow diagnosis_window(const replay::Explanation& x);

// The vector an event is about (accepts, injections, EOIs, ICR IPIs), if any.
std::optional<int> event_vector(const Event& e);

// Events with a timestamp in the view, as a range of indices when nothing is filtered
// and as a list otherwise (at most `limit`: beyond it the table asks to zoom in).
struct EventRows {
    std::size_t first = 0, last = 0;       // unfiltered: [first, last)
    bool filtered = false;
    std::vector<std::size_t> picked;       // filtered: indices in time order
    std::size_t in_view = 0;               // events in the view before filtering
    bool too_many = false;                 // filtered and more than `limit` to scan
    std::size_t size() const { return filtered ? picked.size() : last - first; }
    std::size_t at(std::size_t i) const { return filtered ? picked[i] : first + i; }
    // The row listing event `index`, if one does.
    std::optional<std::size_t> row_of(std::size_t index) const {
        if (!filtered) return index >= first && index < last ? std::optional<std::size_t>(index - first) : std::nullopt;
        const auto it = std::lower_bound(picked.begin(), picked.end(), index);
        return it != picked.end() && *it == index ? std::optional<std::size_t>(static_cast<std::size_t>(it - picked.begin())) : std::nullopt;
    }
};
EventRows events_in_view(const Trace& trace, const LaneLookup& lanes, const Filter& f, const ViewRange& v, std::size_t limit = 2'000'000);

}  // namespace irqflow::gui
