// The live check: a live source (capture's Follow for text, RingFollow for a recording)
// hands events over as they are written, the replay takes them one by one, findings go
// out once settled (pipeline.hpp).
#include "pipeline.hpp"

#include <algorithm>

namespace irqflow::pipeline {

using Clock = std::chrono::steady_clock;

LiveCheck::LiveCheck(const Trace& names, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live)
    : names_(names), watch_(watch), live_(live), last_status_(Clock::now()) {
    const Trace known;  // nothing known before the first event: the replay learns as the stream goes
    replay_ = std::make_unique<replay::StreamingReplay>(known, options);
    h_ = {
        [this](VmId vm, const VcpuInfo& v) { replay_->vcpu(vm, v); },
        [this](std::size_t start) { replay_->drop_window(start); },
        [this](const Event& e) {
            replay_->feed(e);
            ++fed_;
            horizon_ = std::max(horizon_, e.ts);
            if (replay_->findings().size() != seen_ || !pending_.empty()) settle(false);
        },
    };
}

LiveCheck::~LiveCheck() = default;

// A finding settles once `settle_events` events or `settle` of trace time went by after
// it (the source's input reaching that far) — not wall time, so what is printed as a root
// does not depend on how fast the check runs — or when the source's input stalled (a
// stalled input holds no finding back).
void LiveCheck::settle(bool all) {
    const auto& fs = replay_->findings();
    for (; seen_ < fs.size(); ++seen_) pending_.push_back({seen_, fed_, horizon_});
    const std::int64_t wait = std::chrono::duration_cast<std::chrono::nanoseconds>(live_.settle).count();
    while (!pending_.empty() &&
           (all || stalled_ || fed_ - pending_.front().at_event >= live_.settle_events || pending_.front().at_ts.value() <= horizon_.value() - wait)) {
        if (watch_.found) watch_.found(fs[pending_.front().index], pending_.front().index, names_);
        pending_.pop_front();
    }
}

void LiveCheck::tick(const LiveProgress& source) {
    horizon_ = std::max(horizon_, source.delivered);
    stalled_ = source.stalled;
    settle(false);
    stalled_ = false;
    if (watch_.status && Clock::now() - last_status_ >= std::chrono::seconds(1)) {
        last_status_ = Clock::now();
        watch_.status(source.events, source.lost, replay_->findings().size());
    }
}

Checked LiveCheck::finish() {
    Checked c{.trace = names_};
    c.result = replay_->finish();
    const auto& fs = c.result.findings;
    for (; seen_ < fs.size(); ++seen_) pending_.push_back({seen_, fed_, horizon_});
    for (const auto& p : pending_)
        if (watch_.found) watch_.found(fs[p.index], p.index, c.trace);
    pending_.clear();
    return c;
}

Checked check_live(const std::string& shown, int fd, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live) {
    irqflow::Follow source(shown, fd, live.follow);
    LiveCheck check(source.trace(), options, watch, live);
    while (source.step(std::chrono::milliseconds(100), check.handlers())) check.tick(source.progress());
    return check.finish();
}

}  // namespace irqflow::pipeline
