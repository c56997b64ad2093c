// KVM's late IRR writes (replay/README.md, "Late IRR writes"). KVM moves a vector from
// IRR to ISR before it traces kvm_inj_virq; an accept of the same vector from another
// CPU traced in between can land after the move. The trace then shows the accept
// before the injection, so the model counts it as coalesced, yet KVM holds it in IRR
// and delivers it once more after the EOI. That second injection is legal only when
// the trace shows the race: the accept lies in (the vCPU thread's previous event - the
// clock-skew bound, the injection], and the injection shows a request that came late (a
// re-injection of the vector before the next entry, or an external-interrupt exit first
// after it). Then the vector is "maybe pending" until it is injected, a lower vector is
// injected while it would have been deliverable, the vCPU blocks in HLT, or it is
// accepted again. Kept this tight on purpose: a spurious injection stays a finding.
#pragma once
#include <cstdint>

namespace irqflow::replay {

class LateIrr {
public:
    // A cross-thread accept of `vector` that found it pending already.
    void coalesced_accept(int vector, std::int64_t ts, std::uint64_t record) {
        cand_ = {vector, ts, record};
        if (mark_.vector == vector) mark_ = {};  // accepted again: IRR holds it, no mark needed
    }
    // Any accept of `vector` into IRR drops its mark.
    void accepted(int vector) {
        if (mark_.vector == vector) mark_ = {};
    }
    // An injection of `vector`; `prev_own_ts` is the vCPU thread's previous event,
    // `skew_ns` the clock-skew bound (0 when unknown).
    void injected(int vector, std::int64_t ts, std::uint64_t record, std::int64_t prev_own_ts, std::int64_t skew_ns) {
        if (cand_.vector == vector && cand_.ts > prev_own_ts - skew_ns && cand_.ts <= ts)
            race_ = {{vector, cand_.ts, cand_.record}, record, Stage::AwaitLateRequest};
        else race_ = {};
        cand_ = {};
    }
    void reinjected(int vector) {
        if (race_.stage == Stage::AwaitLateRequest && race_.accept.vector == vector) confirm();
    }
    void entered() {
        cand_ = {};
        if (race_.stage == Stage::AwaitLateRequest) race_.stage = Stage::AwaitExit;
    }
    void exited(bool external_interrupt) {
        if (race_.stage == Stage::AwaitExit && external_interrupt) confirm();
        else if (race_.stage != Stage::None) race_ = {};
    }
    // The vCPU blocked in HLT: nothing was injectable, so nothing is maybe pending.
    void blocked() { mark_ = {}; }
    // A lower vector was injected while the marked one would have been deliverable.
    void passed_over() { mark_ = {}; }
    void reset() { *this = LateIrr{}; }

    struct Mark {
        int vector = -1;
        std::int64_t accept_ts = 0;
        std::uint64_t accept_record = 0;  // the accept that raced the injection
        std::uint64_t first_inject_record = 0;
    };
    const Mark& mark() const { return mark_; }
    // The marked vector is injected (outside IRR and ISR): the mark is used up.
    void used() { mark_ = {}; }

private:
    struct Accept {
        int vector = -1;
        std::int64_t ts = 0;
        std::uint64_t record = 0;
    };
    enum class Stage : std::uint8_t { None, AwaitLateRequest, AwaitExit };
    struct Race {
        Accept accept;
        std::uint64_t inject_record = 0;
        Stage stage = Stage::None;
    };
    void confirm() {
        mark_ = {race_.accept.vector, race_.accept.ts, race_.accept.record, race_.inject_record};
        race_ = {};
    }
    Accept cand_;
    Race race_;
    Mark mark_;
};

}  // namespace irqflow::replay
