#include "irqflow/replay/replay.hpp"

#include <algorithm>
#include <cstdlib>

#include "engine.hpp"

namespace irqflow::replay {

int VcpuState::ppr() const {
    const int top = isr.highest();
    const int isr_class = top < 0 ? 0 : top & 0xf0;
    return (tpr & 0xf0) >= isr_class ? tpr : isr_class;
}

int VcpuState::deliverable() const {
    const int v = irr.highest();
    if (v < 0 || priority_class(v) <= priority_class(ppr())) return -1;
    return v;
}

const char* to_string(PvEoiSemantics s) {
    switch (s) {
    case PvEoiSemantics::Auto: return "auto";
    case PvEoiSemantics::Original2012: return "2012";
    case PvEoiSemantics::Current: return "current";
    }
    return "?";
}

PvEoiSemantics semantics_for_kernel(const std::string& release) {
    // PV EOI was merged in Linux 3.6 with the arming done before each entry; the
    // injection-time arming of the 2012 series only exists in kernels carrying those
    // patches, so it is chosen explicitly (--semantics 2012).
    (void)release;
    return PvEoiSemantics::Current;
}

std::uint64_t ReplayResult::divergences() const {
    std::uint64_t n = 0;
    for (const auto& f : findings) n += rule_info(f.rule).severity == Severity::Divergence;
    return n;
}

std::uint64_t ReplayResult::liveness_failures() const {
    std::uint64_t n = 0;
    for (const auto& f : findings) n += rule_info(f.rule).severity == Severity::Liveness;
    return n;
}

ReplayResult replay(const Trace& trace, const ReplayOptions& options) {
    const PvEoiSemantics sem =
        options.semantics == PvEoiSemantics::Auto ? semantics_for_kernel(trace.meta.kernel_release) : options.semantics;
    Engine e(trace, options, sem);
    e.run();
    return e.take();
}

Replayer::Replayer(const Trace& trace, const ReplayOptions& options)
    : trace_(trace),
      engine_(std::make_unique<Engine>(trace, options,
                                        options.semantics == PvEoiSemantics::Auto ? semantics_for_kernel(trace.meta.kernel_release)
                                                                                  : options.semantics)) {}
Replayer::~Replayer() = default;
Replayer::Replayer(const Replayer& o) : trace_(o.trace_), engine_(std::make_unique<Engine>(*o.engine_)), pos_(o.pos_) {}

void Replayer::step_until(std::size_t index) {
    index = std::min(index, trace_.events.size());
    for (; pos_ < index; ++pos_) engine_->step(trace_.events[pos_]);
}

std::vector<VcpuState> Replayer::states() const { return engine_->states(); }

}  // namespace irqflow::replay
