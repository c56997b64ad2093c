// Two runs side by side (`irqflow diff`, ui/README.md "Comparing two runs"): each run
// digested once into totals and per-time-block counts, then compared row by row,
// normalized so runs of different length compare (per second of guest time, per
// injected interrupt), each row with a significance test. No printing here.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/rates.hpp"
#include "irqflow/replay/replay.hpp"
#include "significance.hpp"

namespace irqflow::ui {

// A vCPU of a run, as the diff names it: "vcpu1", or "vm1/vcpu2" outside the first VM.
struct VcpuRef {
    int vm = 0, vcpu = 0;
    auto operator<=>(const VcpuRef&) const = default;
};
std::string to_string(VcpuRef v);

// One run, reduced to what a comparison needs. Counts are kept per block of equal
// length between the first and last event: the spread of a rate across blocks is what
// tells a real change from a run that merely went differently (batch means).
struct RunDigest {
    static constexpr std::size_t kBlocks = 10;
    struct Block {
        double guest_s = 0;  // vCPU time in the guest (entry to exit), summed over vCPUs
        std::uint64_t exits = 0, injections = 0, eois = 0, pv_eois = 0, ipis = 0, ipi_targets = 0;
        std::map<std::string, std::uint64_t> exits_by_reason;  // exit_reason_key
        std::map<int, std::uint64_t> injections_by_vector;
        std::map<std::string, std::uint64_t> eois_by_path;  // replay::to_string(EoiPath)
    };
    std::string name;
    std::int64_t t0 = 0, t1 = 0;
    std::array<Block, kBlocks> blocks{};
    Block total;
    // the same per vCPU (guest time, exits, injections, EOIs; the maps stay empty)
    struct PerVcpu {
        std::array<Block, kBlocks> blocks{};
        Block total;
    };
    std::map<VcpuRef, PerVcpu> vcpus;
    // the replay's own PV EOI figures, as `predict` prints them
    std::uint64_t real_eois = 0, pv_eois = 0, predicted_pv_eoi_saved = 0;
    // exits PV IPI saved (hypercalls in the capture) and would save (ICR writes it replaces)
    std::uint64_t pv_ipi_saved = 0, predicted_pv_ipi_saved = 0;
    // exits the Hyper-V enlightenments saved: the EOI assist (part of pv_eois) and IPI hypercalls
    std::uint64_t hv_eoi_assist_saved = 0, hv_ipi_saved = 0;
    std::map<std::string, std::uint64_t> findings_by_rule;
    // latency samples (ns) per vector and time block: accept→inject, inject→EOI
    using Samples = std::vector<std::vector<std::int64_t>>;  // [block] → samples
    std::map<int, Samples> accept_to_inject, inject_to_eoi;
    // where the EOI of each inject→EOI sample was seen, per vector: [0] at the guest's own
    // EOI exit (APIC write, MSR), [1] only at a later exit (PV EOI, the Hyper-V EOI
    // assist: the guest cleared a flag in memory and KVM noticed at its next exit). The
    // two measure different spans, so a vector whose mix differs between the runs has
    // inject→EOI rows that do not compare.
    std::map<int, std::array<std::uint64_t, 2>> eoi_seen;
    // time in the host per exit (exit to the vCPU's next entry), per reason: n, mean, variance
    struct Moments {
        double n = 0, mean = 0, m2 = 0;
        void add(double x) {
            n += 1;
            const double d = x - mean;
            mean += d / n;
            m2 += d * (x - mean);
        }
        double variance() const { return n > 1 ? m2 / (n - 1) : 0; }
    };
    std::map<std::string, Moments> host_time_by_reason;
    std::map<std::string, std::array<Moments, kBlocks>> host_time_by_reason_block;
};

// `r` must come from a replay with collect_details (interrupts, IPIs).
RunDigest digest(std::string name, const Trace& t, const replay::ReplayResult& r);

struct DiffRow {
    std::string key;    // what --fail-on names: exits_per_guest_s, p99.inject_to_eoi[0xec], ...
    std::string label;  // what the table says
    std::string unit;   // "/s", "/interrupt", "%", "µs", ""
    bool headline = false;
    double a = 0, b = 0;
    TestResult test{};  // test.test empty: no test applies (a count too small, or one side has none)
    // Why the two values measure different things ("EOI observed at different points:
    // ..."), empty when they compare; such a row has no test and no gate may name it.
    std::string not_comparable{};
    // What the row counts (its rate's count; a latency stage; findings), and for a row of
    // a family the exit reason / EOI path / rule (`of`) or the vector it is of: how the
    // GUI finds the events behind a row without reading its key.
    replay::RunCount counts = replay::RunCount::GuestSeconds;
    std::string of{};
    int vector = -1;
    std::optional<std::pair<VcpuRef, VcpuRef>> vcpus{};  // a per-vCPU row: A's vCPU and B's
    double change() const { return b - a; }
    std::optional<double> ratio() const { return a != 0 ? std::optional<double>(b / a) : std::nullopt; }
};

// Which vCPU of A is compared with which of B, for the per-vCPU rows (the run-wide rows
// sum over all vCPUs either way). By default each vCPU with the same VM and vCPU id on
// both sides; `--vcpu-map` names pairs when the numbering differs (a VM moved to another
// slot, a vCPU pinned elsewhere).
using VcpuMap = std::vector<std::pair<VcpuRef, VcpuRef>>;
VcpuMap same_ids(const RunDigest& a, const RunDigest& b);
// "A=B[,A=B...]", each side "N" (vm0) or "vmM/vcpuN" or "M/N"; each vCPU must exist in its
// run and appear once per side. nullopt with `error` saying what is wrong and where.
std::optional<VcpuMap> parse_vcpu_map(const std::string& text, const RunDigest& a, const RunDigest& b, std::string& error);

// The rows; per-vCPU ones (key "vcpu1.exits_per_guest_s", named by A's vCPU) for each
// pair of `vcpus` (default: same_ids).
std::vector<DiffRow> compare(const RunDigest& a, const RunDigest& b, const VcpuMap* vcpus = nullptr);

// A row's values and change as `diff` and the GUI's compare tab show them: µs with one
// decimal, percentages with '%', a percentage's change in points, other rows' relative;
// the verdict "YES", "no", "-" (no test) or "not comparable".
std::string value_text(const DiffRow& r, double v);
std::string change_text(const DiffRow& r);
const char* verdict_text(const DiffRow& r);

// A vector's inject→EOI rows do not compare when one run saw none of its EOIs only at a
// later exit and the other more than this share (PV EOI on one side only).
inline constexpr double kEoiSeenLateTolerance = 0.10;

// What PV EOI did or would do on each side: measured (kvm_pv_eoi) and predicted
// (the arming rule on the EOIs that exited), as `predict` reports them.
struct PvEoiSide {
    std::uint64_t eois = 0, pv_eois = 0, predicted_saved = 0;
    double measured_hit_rate() const { return eois ? static_cast<double>(pv_eois) / static_cast<double>(eois) : 0; }
    double predicted_hit_rate() const { return eois ? static_cast<double>(pv_eois + predicted_saved) / static_cast<double>(eois) : 0; }
};
inline PvEoiSide pv_eoi_side(const RunDigest& d) { return {d.real_eois, d.pv_eois, d.predicted_pv_eoi_saved}; }

}  // namespace irqflow::ui
