// A kvm_exit row's guest and host time (storage/SCHEMA.md, "Events"), worked out as
// events arrive, and the exits counted per vCPU and reason; the same for every backend.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/exit_reason_ids.hpp"
#include "session_sink.hpp"

namespace irqflow::storage {

// Exit and entry times per vCPU: each exit's guest time (since the entry before) is
// known at the exit, its host time (until the next entry) only at that entry. Exits
// wait in record order until theirs is known; past kMaxWaiting (a vCPU halted while
// others keep exiting) the oldest is written without it and updated once it is.
class ExitTimes {
public:
    static constexpr std::size_t kMaxWaiting = 65536;
    explicit ExitTimes(EventRowSink& rows) : rows_(rows) {}

    void exit(const Event& e) {
        Row r{e, std::nullopt, std::nullopt};
        if (e.vcpu == kUnknownVcpu) {
            reasons_.of(e);  // in exit_reasons, though in no vCPU's counts
            waiting_.push_back({std::move(r), true, 0});
            drain();
            return;
        }
        auto& v = vcpus_[vm_vcpu_key(e.vm, e.vcpu)];
        close(v);  // two exits without an entry between: the first has no host time
        if (v.last_entry >= 0) {
            r.guest_ns = e.ts.value() - v.last_entry;
            guest_ns_ += *r.guest_ns;
        }
        ++exits_;
        v.last_entry = -1;
        count_reason(v.reasons, reasons_.of(e));
        waiting_.push_back({std::move(r), false, vm_vcpu_key(e.vm, e.vcpu)});
        v.open = base_ + waiting_.size();
        v.exit_ts = e.ts.value();
        drain();
    }
    void entry(const Event& e) {
        if (e.vcpu == kUnknownVcpu) return;
        auto& v = vcpus_[vm_vcpu_key(e.vm, e.vcpu)];
        v.last_entry = e.ts.value();
        const std::int64_t host = e.ts.value() - v.exit_ts;
        if (v.open) {
            auto& w = waiting_[v.open - 1 - base_];
            w.row.host_ns = host;
            w.done = true;
            v.open = 0;
            drain();
        } else if (v.written_early) {
            rows_.set_host_time(e.vm, e.vcpu, host);
            v.written_early = false;
        }
    }
    void finish() {
        for (auto& w : waiting_) rows_.insert(std::move(w.row));
        waiting_.clear();
    }
    // Exits per (vCPU, reason name): exit_counts; and every (isa, reason) seen.
    std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::int64_t> counts() const {
        std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::int64_t> out;
        for (const auto& [key, v] : vcpus_)
            for (const auto& [name, n] : reasons_.named(v.reasons))
                out[{static_cast<std::int32_t>(key >> 32), static_cast<std::int32_t>(key & 0xffffffff), name}] += static_cast<std::int64_t>(n);
        return out;
    }
    // Exits of known vCPUs and the guest time they ended (the exits view's rows and
    // their guest_ns summed: session_totals).
    std::int64_t exits() const { return exits_; }
    std::int64_t guest_ns() const { return guest_ns_; }
    std::vector<std::pair<std::int64_t, std::int64_t>> reasons() const {  // (isa, code or -1)
        std::vector<std::pair<std::int64_t, std::int64_t>> out;
        for (ExitReasonIds::Id id = 0; id < reasons_.size(); ++id) out.emplace_back(reasons_.isa(id), reasons_.code(id).value_or(-1));
        return out;
    }

private:
    struct Vcpu {
        std::int64_t last_entry = -1, exit_ts = 0;
        std::uint64_t open = 0;           // 1 + sequence number of the exit waiting for its entry
        bool written_early = false;       // that exit was written before its entry came
        std::vector<std::uint64_t> reasons;  // exits by reason id
    };
    struct Waiting {
        Row row;
        bool done;
        std::uint64_t vcpu;
    };
    void close(Vcpu& v) {
        if (v.open) waiting_[v.open - 1 - base_].done = true;
        v.open = 0;
        v.written_early = false;
    }
    void drain() {
        while (!waiting_.empty() && (waiting_.front().done || waiting_.size() > kMaxWaiting)) {
            Waiting& w = waiting_.front();
            if (w.done) {
                rows_.insert(std::move(w.row));
            } else {  // its vCPU has been out of the guest for a long time: write it now
                rows_.insert_early_exit(std::move(w.row));
                auto& v = vcpus_[w.vcpu];
                v.open = 0;
                v.written_early = true;
            }
            waiting_.pop_front();
            ++base_;
        }
    }
    EventRowSink& rows_;
    std::int64_t exits_ = 0, guest_ns_ = 0;
    std::deque<Waiting> waiting_;
    std::uint64_t base_ = 0;  // sequence number of waiting_.front()
    std::unordered_map<std::uint64_t, Vcpu> vcpus_;
    ExitReasonIds reasons_;  // of every exit, of known vCPUs or not
};

}  // namespace irqflow::storage
