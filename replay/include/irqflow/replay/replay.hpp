// Replay: re-executes each vCPU's local APIC (IRR/ISR/TMR, TPR/PPR), PV EOI, PV IPI and
// Hyper-V EOI assist from the normalized events, and checks every injection, EOI and
// IPI against what the trace shows (replay/README.md). Knows nothing of files, SQLite
// or the GUI: events in, findings and statistics out.
#pragma once
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/finding.hpp"
#include "irqflow/replay/guest_match.hpp"
#include "irqflow/replay/latency.hpp"
#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

// When the host arms PV EOI (replay/README.md, "PV EOI arming"): the 2012 patch series
// armed it at injection time; every released kernel re-arms before each VM entry.
enum class PvEoiSemantics { Auto, Original2012, Current };
const char* to_string(PvEoiSemantics s);
// "auto", "2012", "current" (what `--semantics` and stored sessions spell); nullopt otherwise.
std::optional<PvEoiSemantics> parse_semantics(std::string_view text);
// "6.1.0-50-amd64" → Current; unknown → Current (what every released kernel runs).
PvEoiSemantics semantics_for_kernel(const std::string& release);

// How the guest's EOI reached KVM, read from the events around kvm_eoi.
enum class EoiPath : std::uint8_t { X2apicMsr, XapicMmio, HypervMsr, PvEoi, Other };
inline constexpr int kEoiPaths = 5;
const char* to_string(EoiPath p);  // "x2apic-msr", "xapic-mmio", "hyperv-msr", "pv-eoi", "other"

// How an IPI was sent.
enum class IpiKind : std::uint8_t { PvIpiHypercall, IcrWrite, HypervIpi };
const char* to_string(IpiKind k);  // "PV IPI hypercall", "ICR write", "Hyper-V IPI"

// A set of rules, one bit per RuleId.
using RuleMask = std::bitset<static_cast<std::size_t>(RuleId::Count_)>;

struct ReplayOptions {
    PvEoiSemantics semantics = PvEoiSemantics::Auto;
    // The rules that run (all by default). One left out costs nothing, judges nothing
    // and is not listed as not judged (bench_replay prices each rule by leaving it out).
    RuleMask rules = RuleMask().set();
    // The guest's own trace, already on the host's clock (align_guest_clock), and the
    // host's VM it is: its handlers are matched to the host's deliveries, the GUEST-*
    // rules judge them and ReplayResult::guest counts them (README.md, "Guest
    // handlers"). Must outlive the replay.
    const GuestTrace* guest = nullptr;
    VmId guest_vm = kUnknownVm;
    bool collect_details = false;  // fill ReplayResult::interrupts and ::ipis (storage and the GUI want them)
    bool collect_latency = true;   // keep latency samples for the percentiles
    std::int64_t no_eoi_threshold_ns = 1'000'000'000;   // LIVE-NO-EOI
    std::int64_t pending_threshold_ns = 100'000'000;    // LIVE-PENDING-NOT-INJECTED: deliverable this long,
    int pending_entries = 64;                           //   over this many entries
    int pending_windows = 8;                            //   and this many open interrupt windows
    int reinject_loop = 3;                              // LIVE-REINJECT-LOOP: identical failed-delivery cycles
    int level_storm = 2;                                // LIVE-LEVEL-STORM: EOIs in a row with the line still asserted
    int apicv_flap = 4;                                 // LIVE-APICV-INHIBIT-FLAP: set→clear cycles of one reason
    std::int64_t apicv_flap_window_ns = 1'000'000'000;  //   within this long
    int accept_loop = 3;                                // LIVE-ACCEPTED-NOT-DELIVERED: accepts with no delivery between,
    int accept_loop_silent = 2;                         //   and as many when the vCPU shows nothing at all
};


// The counters of a replay. Which of them `check --json`, the database and the GUI
// show, and under which key, is declared once in statistics.hpp.
struct ReplayStats {
    std::uint64_t events = 0;
    std::uint64_t injections = 0, injections_checked = 0, reinjections = 0, extint_injections = 0, soft_injections = 0,
                  nested_injections = 0;
    // Re-injections: of a delivery the exit before cut short (its vectoring info shows
    // the vector), or of one whose entry KVM cancelled (no entry in between).
    std::uint64_t reinjections_failed_delivery = 0, reinjections_cancelled = 0;
    // Injections outside IRR and ISR forgiven as a late IRR write (model/late_irr.hpp).
    std::uint64_t late_irr_writes = 0;
    std::uint64_t auto_eoi_injections = 0;  // Hyper-V SynIC auto-EOI vectors
    std::uint64_t coalesced_accepts = 0;    // accepted while already pending: merged (lost-edge risk)
    std::uint64_t coalesced_accepts_own_thread = 0, coalesced_accepts_cross_thread = 0;  // by the thread that sent it
    std::uint64_t eois = 0, eois_checked = 0, eoi_nothing_in_service = 0;
    std::map<std::string, std::uint64_t> eois_by_path;  // by to_string(EoiPath)
    std::uint64_t pv_eois = 0;
    double pv_eoi_hit_rate = 0;                          // PV EOIs / real EOIs
    int max_nesting = 0;  // on vCPUs whose state was known
    std::uint64_t ipis_checked = 0, pv_ipi_hypercalls = 0, icr_ipis = 0, hv_ipis = 0;
    std::uint64_t exits = 0;
    std::map<std::string, std::uint64_t> exits_by_reason;  // by exit_reason_key
    std::uint64_t exits_saved_pv_eoi = 0;  // one per kvm_pv_eoi
    std::uint64_t exits_saved_pv_ipi = 0;  // per hypercall: the ICR accesses it replaced - 1
    // The Hyper-V enlightenments' share: kvm_pv_eoi of a vCPU that enabled it through the
    // VP assist page (the EOI assist; also counted in exits_saved_pv_eoi), and per
    // Hyper-V IPI hypercall the ICR accesses it replaced - 1 (_ex sends, whose
    // destinations the trace does not show, are not counted).
    std::uint64_t exits_saved_hv_eoi_assist = 0, exits_saved_hv_ipi = 0;
    // Counterfactuals, meaningful on captures with the feature off: EOI exits that PV
    // EOI would have saved (a real EOI while the arming rule would have armed it), and
    // ICR writes of one multi-destination send that a PV IPI hypercall would have
    // replaced (minus the hypercalls themselves).
    std::uint64_t predicted_pv_eoi_saved = 0;
    std::uint64_t predicted_pv_ipi_saved = 0;
    std::uint64_t icr_sends_multi = 0;  // groups of ICR writes forming one multi-destination send
    std::map<int, Latency> accept_to_inject;  // by vector
    std::map<int, Latency> inject_to_eoi;
    std::uint64_t unsynced_events = 0;    // vCPU events seen while its state was unknown
    std::uint64_t gaps = 0;
    // Bound on the skew between host CPUs' trace clocks (model/clock_skew.hpp): 0 when
    // no pair of CPUs showed causes and effects both ways; from this many pairs.
    std::uint64_t clock_skew_bound_ns = 0, clock_skew_pairs = 0;

    // Injections the model can judge: every kvm_inj_virq but software interrupts and
    // re-injections of an interrupted delivery.
    std::uint64_t checkable_injections() const { return injections - soft_injections - reinjections - nested_injections; }
    // EOIs of something in service (kvm_eoi -1 only says ISR was empty).
    std::uint64_t real_eois() const { return eois - eoi_nothing_in_service; }
};

// One vCPU's modelled APIC as the GUI inspector and tests see it (a copy).
struct VcpuState {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    ApicId apic{0};
    VectorSet irr, isr, tmr;
    int tpr = 0;
    bool pv_eoi_enabled = false;
    bool pv_eoi_armed = false;
    bool synced = false;  // state provably matches the guest's
    int ppr() const { return apic_ppr(tpr, isr); }
    // Highest pending vector whose class beats PPR, or -1.
    int deliverable() const { return apic_deliverable(irr, ppr()); }
};

// One interrupt's life on one vCPU: accept → inject → EOI (records are raw record
// indices; 0 with ts 0 when that step is not in the trace).
struct InterruptRecord {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    int vector = -1;
    std::uint64_t accept_record = 0, inject_record = 0, eoi_record = 0;
    // accept_ts 0: no accept of its own was seen (none since the vector's injection
    // before, as when lost events hid it), as the replay's accept → inject latency counts it
    std::int64_t accept_ts = 0, inject_ts = 0, eoi_ts = 0;
    std::optional<EoiPath> eoi_path;  // none without an EOI, or when the trace does not show the path
    int nesting_depth = 0;            // vectors in service once it was injected (1 = not nested)
    bool level = false;
};

// One IPI send and where it went.
struct IpiRecord {
    std::uint64_t record = 0;
    std::int64_t ts = 0;
    VmId vm = kUnknownVm;
    VcpuId sender = kUnknownVcpu;
    IpiKind kind = IpiKind::IcrWrite;
    int vector = 0, delivery_mode = 0;
    std::vector<std::uint32_t> expected, received;  // APIC ids
    bool exact = true;
};

// An injection of a vector outside IRR and ISR that the replay forgave: an accept of it
// from another CPU raced KVM's IRR-to-ISR move of the injection before (model/late_irr.hpp).
struct LateIrrWrite {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    int vector = -1;
    std::uint64_t accept_record = 0;        // the accept that raced
    std::uint64_t first_inject_record = 0;  // the injection it raced
    std::uint64_t inject_record = 0;        // the injection forgiven
};

// A stretch of time in which a vCPU's modelled state was not proven (the replay could
// not judge its events): from its first own event seen so to the first seen proven again.
struct UnsyncedSpan {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    std::int64_t start = 0, end = 0;
};

// A rule that judged nothing in the input, and what the input lacked for it.
struct NotJudged {
    RuleId rule;
    std::string why;
};

struct ReplayResult {
    std::vector<LateIrrWrite> late_irr_writes;
    std::vector<InterruptRecord> interrupts;  // with collect_details
    std::vector<IpiRecord> ipis;              // with collect_details
    std::vector<UnsyncedSpan> unsynced;       // with collect_details: by end, then vCPU
    PvEoiSemantics semantics = PvEoiSemantics::Current;
    std::vector<Finding> findings;
    ReplayStats stats;
    std::vector<VcpuState> final_state;
    // Rules that had no case to judge (rules.def order): "0 findings" says nothing of them.
    std::vector<NotJudged> not_judged;
    std::optional<GuestMatch> guest;  // with ReplayOptions::guest
    std::uint64_t divergences() const;
    std::uint64_t liveness_failures() const;
    std::uint64_t follow_ons() const;  // findings an earlier root explains (Finding::caused_by)
};

ReplayResult replay(const Trace& trace, const ReplayOptions& options = {});

class Engine;
// The same replay fed one event at a time, in trace order, for traces whose events are
// not held (TraceStream) and for live streams: state stays per vCPU and vector. `trace`
// gives the VMs, vCPUs and drop windows known before the first event and must outlive
// this object; a live stream adds what it learns later (replay/README.md, "Live").
class StreamingReplay {
public:
    explicit StreamingReplay(const Trace& trace, const ReplayOptions& options = {});
    ~StreamingReplay();
    StreamingReplay(const StreamingReplay&) = delete;
    StreamingReplay& operator=(const StreamingReplay&) = delete;
    void feed(const Event& e);
    void feed(std::span<const Event> events);  // the same, a batch at a time (one call, not one per event)
    // A vCPU first seen now, or what was learnt of one (its APIC id, its thread); its
    // state is unknown until the trace proves it, as for any vCPU.
    void vcpu(VmId vm, const VcpuInfo& info);
    // A drop whose lost events may begin at event index `start` (opens before the next
    // event when the replay is past it).
    void drop_window(std::size_t start);
    // The findings so far, in the order of the result's (a live check prints them as
    // they come; one found later may still make an earlier root its follow-on: see
    // replay/README.md, "Live").
    const std::vector<Finding>& findings() const;
    ReplayResult finish();  // once, after the last event

private:
    std::unique_ptr<Engine> engine_;
};

class Model;
class DropWindows;
// Incremental replay of the model alone (no rules, no statistics), for "the APIC state
// at time T" (the GUI inspector): step through the trace's events and read every
// vCPU's modelled state; copies are checkpoints.
class Replayer {
public:
    explicit Replayer(const Trace& trace);
    ~Replayer();
    Replayer(const Replayer& other);
    Replayer& operator=(const Replayer&) = delete;
    // Processes events up to (not including) trace.events[index].
    void step_until(std::size_t index);
    std::size_t position() const { return pos_; }
    std::vector<VcpuState> states() const;

private:
    const Trace& trace_;
    std::unique_ptr<Model> model_;
    std::unique_ptr<DropWindows> drops_;
    std::size_t pos_ = 0;
};

}  // namespace irqflow::replay
