// The rates two runs are compared by, declared once (ui/README.md, "Comparing two
// runs"): `irqflow diff` makes a row of each in this order, the GUI's compare tab finds a
// row's instances by what it counts, and storage generates session_rates' columns and
// session_diffs' keys from the rates whose counts a session stores (storage/SCHEMA.md).
// The families of rows (per exit reason, vector, EOI path, rule; latencies) are built by
// the diff from the same counts.
#pragma once
#include <span>
#include <string_view>

namespace irqflow::replay {

// What a run is counted by: in each time block and in total, unless `run_total_only`.
enum class RunCount {
    GuestSeconds,     // vCPU time in the guest (entry to exit), summed over vCPUs
    Exits,            // VM exits
    Injections,       // injected interrupts (kvm_inj_virq the model could check)
    Eois,             // EOIs, any path
    PvEois,           // EOIs through PV EOI (the guest did not exit for them)
    EoiExits,         // EOIs that exited: Eois - PvEois
    Ipis,             // IPIs sent
    IpiDestinations,  // the vCPUs those IPIs addressed
    // the exits the paravirtual features saved (measured) and would save more
    // (predicted, as `irqflow predict`); run totals only
    PvEoiSaved,
    PvEoiPredicted,
    PvIpiSaved,
    PvIpiPredicted,
    HvEoiAssistSaved,
    HvIpiSaved,
    // what the families count: a latency stage's samples, findings of a rule
    AcceptToInject,
    InjectToEoi,
    Findings,
};

constexpr bool run_total_only(RunCount c) { return c >= RunCount::PvEoiSaved && c <= RunCount::HvIpiSaved; }

struct Rate {
    std::string_view key;    // what `diff --fail-on` and session_diffs name it
    std::string_view label;  // what diff's table says
    std::string_view unit;   // "/s", "/interrupt", "%", ""
    RunCount count, per;     // the rate is scale × count / per
    double scale = 1;
    bool headline = false;  // in diff's short table
};

inline constexpr Rate kRates[] = {
    {"exits_per_guest_s", "exits per second in the guest", "/s", RunCount::Exits, RunCount::GuestSeconds, 1, true},
    {"exits_per_interrupt", "exits per injected interrupt", "/interrupt", RunCount::Exits, RunCount::Injections, 1, true},
    {"eoi_exits_per_interrupt", "EOIs that exited, per injected interrupt", "/interrupt", RunCount::EoiExits, RunCount::Injections, 1, true},
    {"pv_eoi_hit_rate", "PV EOI hit rate (EOIs without an exit)", "%", RunCount::PvEois, RunCount::Eois, 100, true},
    {"injections_per_guest_s", "injected interrupts per second in the guest", "/s", RunCount::Injections, RunCount::GuestSeconds, 1, true},
    {"ipis_per_guest_s", "IPIs sent per second in the guest", "/s", RunCount::Ipis, RunCount::GuestSeconds, 1, true},
    {"ipi_fanout", "destinations per IPI", "", RunCount::IpiDestinations, RunCount::Ipis},
    {"pv_eoi_exits_saved_per_guest_s", "exits PV EOI saved, per second in the guest", "/s", RunCount::PvEoiSaved, RunCount::GuestSeconds},
    {"pv_eoi_exits_predicted_per_guest_s", "exits PV EOI would save more, per second in the guest (predict)", "/s", RunCount::PvEoiPredicted,
     RunCount::GuestSeconds},
    {"pv_ipi_exits_saved_per_guest_s", "exits PV IPI saved, per second in the guest", "/s", RunCount::PvIpiSaved, RunCount::GuestSeconds},
    {"pv_ipi_exits_predicted_per_guest_s", "exits PV IPI would save more, per second in the guest (predict)", "/s", RunCount::PvIpiPredicted,
     RunCount::GuestSeconds},
    {"hv_eoi_assist_exits_saved_per_guest_s", "exits the Hyper-V EOI assist saved (of PV EOI's), per second in the guest", "/s",
     RunCount::HvEoiAssistSaved, RunCount::GuestSeconds},
    {"hv_ipi_exits_saved_per_guest_s", "exits Hyper-V IPI hypercalls saved, per second in the guest", "/s", RunCount::HvIpiSaved,
     RunCount::GuestSeconds},
};
inline constexpr std::span<const Rate> rates() { return kRates; }

// The rate named `key`; a key that is not in the list does not compile where it is
// asked for at compile time.
consteval const Rate& rate(std::string_view key) {
    for (const Rate& r : kRates)
        if (r.key == key) return r;
    throw "no such rate in kRates";
}

}  // namespace irqflow::replay
