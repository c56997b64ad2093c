#include "live_feed.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace irqflow {

void LiveFeed::arrived(const Event& e, Clock::time_point now, const LiveHandlers& h) {
    std::vector<LiveAttribution::Learnt> learnt;
    std::vector<std::size_t> drops;
    attribution_.learn(e, learnt, drops);
    for (const auto& l : learnt)
        if (h.vcpu) h.vcpu(l.vm, l.vcpu);
    for (auto d : drops)
        if (h.drop_window) h.drop_window(d);
    if (e.kind == EventKind::Lost) lost_ += static_cast<std::uint64_t>(std::max<std::int64_t>(e.get(slot::lost_count).value_or(0), 0));
    window_.push_back({e, now});
}

void LiveFeed::release(bool all, Clock::time_point now, const LiveHandlers& h) {
    while (!window_.empty() && (all || window_.size() > options_.lookahead_events || now - window_.front().arrived >= options_.hold)) {
        Event& e = window_.front().e;
        std::tie(e.vm, e.vcpu) = attribution_.owner(e);
        ++handed_;
        if (h.event) h.event(e);
        window_.pop_front();
    }
}

}  // namespace irqflow
