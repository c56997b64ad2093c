#include "inspector_model.hpp"

#include <algorithm>
#include <cstdio>

namespace irqflow::gui {

StateIndex::StateIndex(const Trace& trace, std::size_t every) : trace_(trace), every_(std::max<std::size_t>(every, 1)) {
    replay::Replayer r(trace);  // the model alone: a checkpoint is a copy of it
    checkpoints_.push_back(std::make_unique<replay::Replayer>(r));
    for (std::size_t at = every_; at < trace.events.size(); at += every_) {
        r.step_until(at);
        checkpoints_.push_back(std::make_unique<replay::Replayer>(r));
    }
}

std::vector<replay::VcpuState> StateIndex::at(std::int64_t ts) const {
    const auto& ev = trace_.events;
    const auto idx = static_cast<std::size_t>(
        std::upper_bound(ev.begin(), ev.end(), ts, [](std::int64_t t, const Event& e) { return t < e.ts.value(); }) - ev.begin());
    const std::size_t k = std::min(idx / every_, checkpoints_.size() - 1);
    replay::Replayer r(*checkpoints_[k]);
    r.step_until(idx);
    return r.states();
}

const replay::InterruptRecord* interrupt_in_service(const replay::ReplayResult& r, VmId vm, VcpuId vcpu, int vector, std::int64_t ts) {
    const replay::InterruptRecord* found = nullptr;  // the latest injection at or before ts not yet EOI'd
    for (const auto& ir : r.interrupts)
        if (ir.vm == vm && ir.vcpu == vcpu && ir.vector == vector && ir.inject_ts <= ts && (!ir.eoi_ts || ir.eoi_ts >= ts) &&
            (!found || ir.inject_ts >= found->inject_ts))
            found = &ir;
    return found;
}

std::string vector_list(const replay::VectorSet& v) {
    std::string out;
    for (int vec = 255; vec >= 0; --vec)
        if (v.test(vec)) {
            char b[16];  // GCC at -O1 does not bound vec to 0..255
            std::snprintf(b, sizeof b, "%s0x%02x", out.empty() ? "" : " ", vec);
            out += b;
        }
    return out.empty() ? "none" : out;
}

}  // namespace irqflow::gui
