// Counts over a loaded trace: what `irqflow stats` prints.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

struct VcpuSummary {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    Tid tid{-1};
    ApicId apic{0};
    bool apic_from_trace = false;
    std::uint64_t events = 0;
    std::map<std::string, std::uint64_t> by_name;
    std::map<std::string, std::uint64_t> exits_by_reason;
};

struct TraceSummary {
    std::uint64_t records = 0;
    std::map<std::string, std::uint64_t> events;  // every event name in the file
    std::uint64_t lost_events = 0;                // sum of known drop counts
    std::uint64_t lost_gaps = 0;                  // gaps (some may have unknown counts)
    std::uint64_t lost_gaps_unknown = 0;
    std::uint64_t unattributed = 0;               // kvm events with no vCPU
    std::map<std::string, std::uint64_t> exits_by_reason;
    std::vector<VcpuSummary> vcpus;               // ordered by (vm, vcpu)
    std::int64_t first_ts = 0, last_ts = 0;
};

TraceSummary summarize(const Trace& t);

}  // namespace irqflow
