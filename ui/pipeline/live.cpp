// The live check: capture's Follow hands events over as the stream is written, the
// replay takes them one by one, findings go out once settled (pipeline.hpp).
#include <deque>

#include "pipeline.hpp"

namespace irqflow::pipeline {

Checked check_live(const std::string& shown, int fd, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live) {
    using Clock = std::chrono::steady_clock;
    irqflow::Follow source(shown, fd, live.follow);
    Trace known;  // nothing known before the first event: the replay learns as the stream goes
    replay::StreamingReplay replay(known, options);
    struct Pending {
        std::size_t index;
        std::uint64_t at_event;
        Clock::time_point at;
    };
    std::deque<Pending> pending;
    std::size_t seen = 0;  // findings taken into `pending`
    std::uint64_t fed = 0;
    const auto settle = [&](bool all) {
        const auto now = Clock::now();
        const auto& fs = replay.findings();
        for (; seen < fs.size(); ++seen) pending.push_back({seen, fed, now});
        while (!pending.empty() && (all || fed - pending.front().at_event >= live.settle_events || now - pending.front().at >= live.settle)) {
            if (watch.found) watch.found(fs[pending.front().index], pending.front().index, source.trace());
            pending.pop_front();
        }
    };
    const irqflow::Follow::Handlers h{
        [&](VmId vm, const VcpuInfo& v) { replay.vcpu(vm, v); },
        [&](std::size_t start) { replay.drop_window(start); },
        [&](const Event& e) {
            replay.feed(e);
            ++fed;
            if (replay.findings().size() != seen || !pending.empty()) settle(false);
        },
    };
    auto last_status = Clock::now();
    while (source.step(std::chrono::milliseconds(100), h)) {
        settle(false);
        if (watch.status && Clock::now() - last_status >= std::chrono::seconds(1)) {
            last_status = Clock::now();
            watch.status(source.events(), source.lost_events(), replay.findings().size());
        }
    }
    Checked c{source.trace(), std::nullopt, {}};
    // The replay's finish decides what waited for more evidence; those findings and the
    // ones not settled yet go out now, in order.
    c.result = replay.finish();
    const auto& fs = c.result.findings;
    for (; seen < fs.size(); ++seen) pending.push_back({seen, fed, Clock::now()});
    for (const auto& p : pending)
        if (watch.found) watch.found(fs[p.index], p.index, c.trace);
    return c;
}

}  // namespace irqflow::pipeline
