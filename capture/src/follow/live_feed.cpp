#include "live_feed.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace irqflow {

void LiveFeed::arrived(const Event& e, const LiveHandlers& h) {
    std::vector<LiveAttribution::Learnt> learnt;
    std::vector<std::size_t> drops;
    attribution_.learn(e, learnt, drops);
    for (const auto& l : learnt)
        if (h.vcpu) h.vcpu(l.vm, l.vcpu);
    for (auto d : drops)
        if (h.drop_window) h.drop_window(d);
    if (e.kind == EventKind::Lost) lost_ += static_cast<std::uint64_t>(std::max<std::int64_t>(e.get(slot::lost_count).value_or(0), 0));
    window_.push_back(e);
    newest_ = std::max(newest_, e.ts);
}

void LiveFeed::release(bool all, const LiveHandlers& h, TimestampNs delivered, bool stalled) {
    const std::int64_t horizon = std::max(newest_, delivered).value();
    const std::int64_t hold = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.hold).count();
    // (an event's time minus the hold, not the horizon plus it: a horizon near INT64_MAX
    // at the end must not overflow)
    while (!window_.empty() && (all || stalled || window_.size() > options_.lookahead_events || window_.front().ts.value() <= horizon - hold)) {
        Event& e = window_.front();
        std::tie(e.vm, e.vcpu) = attribution_.owner(e);
        ++handed_;
        if (h.event) h.event(e);
        window_.pop_front();
    }
}

}  // namespace irqflow
