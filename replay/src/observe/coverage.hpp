// What the replay saw and how much of it it could judge: events, injections and EOIs
// by kind, the checked ones, events of vCPUs in unknown state, coalesced accepts,
// lost-event gaps and the deepest nesting.
#pragma once
#include "../model/model.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class Coverage {
public:
    explicit Coverage(ReplayStats& stats) : st_(stats) {}
    // Every event; `v` is the vCPU whose own thread emitted it, if any. (The events
    // themselves the engine counts: ReplayStats::events is its count at the end.)
    void event(VcpuSlot v, bool known) {
        if (v != kNoVcpu && !known) ++st_.unsynced_events;
    }
    // An injection or EOI not from a modelled vCPU's own thread: counted, never checked.
    void foreign(const Event& e);
    void gap() { ++st_.gaps; }
    void accepted(const Event& e, const Effect& fx, const Model& m) {
        if (!fx.coalesced) return;
        ++st_.coalesced_accepts;
        ++(e.tid == m.vcpu(fx.vcpu).tid ? st_.coalesced_accepts_own_thread : st_.coalesced_accepts_cross_thread);
    }
    void injection(const Effect& fx, const Model& m);
    void eoi(const Effect& fx);

private:
    ReplayStats& st_;
};

}  // namespace irqflow::replay
