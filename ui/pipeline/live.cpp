// The live check: a live source (capture's Follow for text, RingFollow for a recording)
// hands events over as they are written, the replay takes them one by one, findings go
// out once settled (pipeline.hpp).
#include "pipeline.hpp"

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
            if (replay_->findings().size() != seen_ || !pending_.empty()) settle(false);
        },
    };
}

LiveCheck::~LiveCheck() = default;

void LiveCheck::settle(bool all) {
    const auto now = Clock::now();
    const auto& fs = replay_->findings();
    for (; seen_ < fs.size(); ++seen_) pending_.push_back({seen_, fed_, now});
    while (!pending_.empty() && (all || fed_ - pending_.front().at_event >= live_.settle_events || now - pending_.front().at >= live_.settle)) {
        if (watch_.found) watch_.found(fs[pending_.front().index], pending_.front().index, names_);
        pending_.pop_front();
    }
}

void LiveCheck::tick(std::uint64_t events, std::uint64_t lost) {
    settle(false);
    if (watch_.status && Clock::now() - last_status_ >= std::chrono::seconds(1)) {
        last_status_ = Clock::now();
        watch_.status(events, lost, replay_->findings().size());
    }
}

Checked LiveCheck::finish() {
    Checked c{names_, std::nullopt, {}};
    c.result = replay_->finish();
    const auto& fs = c.result.findings;
    for (; seen_ < fs.size(); ++seen_) pending_.push_back({seen_, fed_, Clock::now()});
    for (const auto& p : pending_)
        if (watch_.found) watch_.found(fs[p.index], p.index, c.trace);
    pending_.clear();
    return c;
}

Checked check_live(const std::string& shown, int fd, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live) {
    irqflow::Follow source(shown, fd, live.follow);
    LiveCheck check(source.trace(), options, watch, live);
    while (source.step(std::chrono::milliseconds(100), check.handlers())) check.tick(source.events(), source.lost_events());
    return check.finish();
}

}  // namespace irqflow::pipeline
