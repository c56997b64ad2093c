// One loaded session: the normalized events plus what the readers learnt about the
// host, the VMs and their vCPUs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/event.hpp"
#include "irqflow/capture/event_store.hpp"

namespace irqflow {


// trace-cmd's TSC2NSEC option (`record -C tsc2nsec`): the file's times are TSC cycles
// that libtracecmd turns into ns as (cycles × mult) >> shift. A guest's TSC maps onto
// such a host clock exactly (capture/README.md, "Guest traces").
struct TscToNs {
    std::uint32_t mult = 0;
    std::uint32_t shift = 0;
    std::uint64_t offset = 0;
};

struct TraceMeta {
    std::string source;          // file name as given
    std::string format;          // "trace.dat v6", "trace.dat v7", "trace-cmd report text", "perf script text"
    std::string kernel_release;  // host `uname -r` when the source records it
    std::string host_name;       // host `uname -n` when the source records it
    std::string clock;           // trace clock ("local", "x86-tsc", …) when known
    std::optional<TscToNs> tsc2nsec;  // when the file converts TSC cycles to ns
    std::string buffer;          // tracefs instance the events came from ("" = top level)
    int host_cpus = 0;
    // Things the reader tolerated but a user should know (skipped annotation lines,
    // events in an unknown print format kept raw, approximations).
    std::vector<std::string> warnings;
    // What the reader did that changes nothing but a user may want to know (wrapped
    // lines of pasted text joined).
    std::vector<std::string> notes;
};

// Whether a trace clock orders events across host CPUs (tracefs trace_clock): "local"
// and "perf" are per-CPU clocks that may drift apart, the others are global.
enum class ClockOrder { CrossCpu, PerCpu, Unknown };
ClockOrder clock_order(std::string_view clock);

struct VcpuInfo {
    VcpuId id = kUnknownVcpu;
    Tid tid{-1};
    ApicId apic{0};
    bool apic_from_trace = false;  // learnt from kvm_eoi/kvm_pv_eoi on the vCPU thread
};

// A followed stream's record → line map in runs (one per jump: a comment, a lost-event
// line, a header), so that it stays small however long the stream runs: each record
// of `trace-cmd stream` is one line. Past kMaxRuns jumps, later records have no line.
class LineRuns {
public:
    void note(std::uint64_t record, std::uint64_t line) {
        if (!runs_.empty() && line == runs_.back().line + (record - runs_.back().record)) return;
        if (runs_.size() < kMaxRuns) runs_.push_back({record, line});
        else full_ = true;
    }
    std::optional<std::uint64_t> line_of(std::uint64_t record) const {
        if (runs_.empty() || record < runs_.front().record || (full_ && record >= last_covered_())) return std::nullopt;
        auto it = std::upper_bound(runs_.begin(), runs_.end(), record, [](std::uint64_t r, const Run& x) { return r < x.record; });
        --it;
        return it->line + (record - it->record);
    }
    bool empty() const { return runs_.empty(); }

private:
    struct Run {
        std::uint64_t record, line;
    };
    static constexpr std::size_t kMaxRuns = 1 << 20;
    std::uint64_t last_covered_() const { return runs_.back().record + 1; }
    std::vector<Run> runs_;
    bool full_ = false;
};

struct VmInfo {
    VmId id = kUnknownVm;
    std::vector<VcpuInfo> vcpus;   // sorted by id
    std::vector<Tid> other_threads;  // I/O threads etc. attributed to this VM
};

class Trace {
public:
    TraceMeta meta;
    EventStore events;
    std::vector<VmInfo> vms;
    // The printed info of Other events, when kept (Event::raw_off/raw_len index it).
    std::string raw;
    // Host thread names as the source recorded them (cmdlines / report task column).
    std::unordered_map<std::int32_t, std::string> comms;
    // Where the events of each ring-buffer drop may start (capture/README.md, "Lost
    // events"): per Lost marker, the index of the first event after its CPU's previous
    // one (0 if none), sorted. Filled by attribute() (or find_drop_windows()).
    std::vector<std::size_t> drop_window_starts;
    // Text input: the line of the input file each record starts on (index = record), so
    // a finding can point into the file the user pasted. Empty for trace.dat.
    std::vector<std::uint32_t> source_lines;
    // The same for a followed text stream, whose records are not kept.
    LineRuns line_runs;
    // The input line record `record` starts on, when the input is text.
    std::optional<std::uint64_t> line_of(std::uint64_t record) const {
        if (record < source_lines.size()) return source_lines[record];
        return line_runs.line_of(record);
    }

    std::uint16_t intern(std::string_view name);
    // Takes `other`'s names with their ids. Only for a trace that has no names yet.
    void adopt_names(const Trace& other);
    const std::string& name(std::uint16_t id) const { return names_[id]; }
    std::size_t name_count() const { return names_.size(); }
    // The printed info of an Other event; empty when the reader did not keep it.
    std::string_view raw_of(const Event& e) const {
        if (e.raw_off > raw.size()) return {};
        return std::string_view(raw).substr(e.raw_off, e.raw_len);
    }

    // Event name → count, Lost markers excluded (they are not records).
    std::map<std::string, std::uint64_t> counts_by_name() const;
    std::uint64_t lost_events() const;    // sum of known drop counts
    std::uint64_t lost_markers() const;   // number of gaps (some have unknown counts)
    std::uint64_t records() const;        // events excluding Lost markers

private:
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::uint16_t> name_ids_;
};

}  // namespace irqflow
