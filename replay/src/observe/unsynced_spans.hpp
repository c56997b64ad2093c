// Where each vCPU's modelled state was unknown, as time spans for the GUI to shade: a
// span opens at the first event of the vCPU's own thread seen while its state was not
// proven (replay/README.md, "Unknown until proven"), or at the first event after a drop
// window threw every vCPU's state away, and closes at the first own event seen after it
// was proven again, or at the end of the trace. Events inside one were
// counted (unsynced_events) but not judged.
#pragma once
#include <vector>

#include "../model/model.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class UnsyncedSpans {
public:
    UnsyncedSpans(std::size_t vcpus, std::vector<UnsyncedSpan>* out) : open_(out ? vcpus : 0, -1), out_(out) {}
    void vcpus(std::size_t n) {  // more became known
        if (out_) open_.resize(n, -1);
    }
    // (Inline, so a replay that collects no spans pays one test per event.)
    [[gnu::always_inline]] void event(VcpuSlot v, bool known, std::int64_t ts, const Model& m) {
        if (out_) track(v, known, ts, m);
    }
    void finish(const Model& m) {
        for (std::size_t i = 0; i < open_.size(); ++i) {
            if (open_[i] < 0) continue;
            const VcpuSlot v(static_cast<std::int32_t>(i));
            out_->push_back({m.vcpu(v).vm, m.vcpu(v).id, open_[i], last_ts_});
        }
    }

private:
    void track(VcpuSlot v, bool known, std::int64_t ts, const Model& m) {
        last_ts_ = std::max(last_ts_, ts);
        if (m.track_losses() != losses_seen_) {  // a drop window: every vCPU unknown from here, events or not
            losses_seen_ = m.track_losses();
            for (std::size_t i = 0; i < open_.size(); ++i)
                if (open_[i] < 0 && !m.vcpu(VcpuSlot(static_cast<std::int32_t>(i))).synced) open_[i] = ts;
        }
        if (v == kNoVcpu) return;
        auto& from = open_[static_cast<std::size_t>(v.value())];
        if (!known && from < 0) from = ts;
        if (known && from >= 0) {
            out_->push_back({m.vcpu(v).vm, m.vcpu(v).id, from, ts});
            from = -1;
        }
    }

    std::vector<std::int64_t> open_;  // per vCPU slot: where its open span began, or -1
    std::int64_t last_ts_ = 0;
    std::uint64_t losses_seen_ = 0;
    std::vector<UnsyncedSpan>* out_;
};

}  // namespace irqflow::replay
