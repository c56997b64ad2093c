// Counts over a loaded trace: what `irqflow stats` prints.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/exit_reason_ids.hpp"
#include "irqflow/capture/trace.hpp"

namespace irqflow {

// The time exits of one reason kept the vCPU in the host: from the exit to that vCPU's
// next entry (perf kvm stat's "time" of a VM-EXIT). Exits without a next entry (the
// trace ends, or events were lost in between) are counted but not timed.
struct ExitTime {
    std::uint64_t samples = 0;  // timed exits
    std::int64_t total_ns = 0, min_ns = 0, max_ns = 0;
    double mean_ns = 0, m2 = 0;  // running mean and sum of squared deviations (Welford)
    void add(std::int64_t ns);
    // The standard error of the mean in % of it: perf kvm stat's "( +- x% )".
    double stderr_percent() const;
};

struct VcpuSummary {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    Tid tid{-1};
    ApicId apic{0};
    bool apic_from_trace = false;
    std::uint64_t events = 0;
    std::map<std::string, std::uint64_t> by_name;
    std::map<std::string, std::uint64_t> exits_by_reason;
    std::map<std::string, ExitTime> exit_time_by_reason;
};

struct TraceSummary {
    std::uint64_t records = 0;
    std::map<std::string, std::uint64_t> events;  // every event name in the file
    std::uint64_t lost_events = 0;                // sum of known drop counts
    std::uint64_t lost_gaps = 0;                  // gaps (some may have unknown counts)
    std::uint64_t lost_gaps_unknown = 0;
    std::uint64_t unattributed = 0;               // kvm events with no vCPU
    std::map<std::string, std::uint64_t> exits_by_reason;
    std::map<std::string, ExitTime> exit_time_by_reason;
    std::vector<VcpuSummary> vcpus;               // ordered by (vm, vcpu)
    std::int64_t first_ts = 0, last_ts = 0;
};

// Counts events as they stream past (TraceStream); `skeleton` gives the names and VMs
// and must outlive it. Memory per vCPU, event name and exit reason.
class Summarizer {
public:
    explicit Summarizer(const Trace& skeleton);
    void add(const Event& e);
    TraceSummary finish();  // once

private:
    static constexpr std::size_t kMaxNames = 65536;  // name ids are 16-bit

    const Trace& t_;
    TraceSummary s_;
    std::unordered_map<std::uint64_t, std::size_t> index_;  // (vm, vcpu) → slot
    std::uint64_t last_key_ = UINT64_MAX;
    std::size_t last_slot_ = SIZE_MAX;
    std::vector<std::uint64_t> by_name_total_;                     // by name id
    std::size_t names_ = 0;                                        // name ids the skeleton has
    std::vector<std::uint64_t> by_name_;                           // [slot * names_ + name id]
    std::unordered_map<std::uint64_t, std::uint64_t> by_late_name_;  // (slot, name id) beyond those
    ExitReasonIds reasons_;
    std::vector<std::uint64_t> exits_total_;                       // by reason id
    std::vector<std::vector<std::uint64_t>> exits_;                // [slot][reason]
    struct OpenExit {
        std::size_t reason = SIZE_MAX;  // none open
        std::int64_t ts = 0;
    };
    std::vector<OpenExit> open_;                                   // per slot: the exit awaiting its entry
    std::vector<std::vector<ExitTime>> times_;                     // [slot][reason]
};

TraceSummary summarize(const Trace& t);

}  // namespace irqflow
