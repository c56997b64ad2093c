#include "overview_model.hpp"

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::gui {

OverviewBuilder::Thread& OverviewBuilder::thread(const Event& e, std::int32_t vcpu_id) {
    auto [it, fresh] = threads_.try_emplace(e.tid.value());
    if (fresh) {
        it->second.lane = o_.lanes.size();
        o_.lanes.push_back({e.tid, vcpu_id, std::vector<OverviewBucket>(Overview::kBuckets)});
    }
    return it->second;
}

void OverviewBuilder::cover(std::int64_t ts) {
    while (o_.bucket(ts) >= Overview::kBuckets) {
        for (auto& lane : o_.lanes) {
            auto& b = lane.buckets;
            for (std::size_t i = 0; i < Overview::kBuckets / 2; ++i) {
                OverviewBucket m;
                for (std::size_t s = 0; s < 3; ++s) m.time[s] = b[2 * i].time[s] + b[2 * i + 1].time[s];
                m.exits = b[2 * i].exits + b[2 * i + 1].exits;
                b[i] = m;
            }
            std::fill(b.begin() + Overview::kBuckets / 2, b.end(), OverviewBucket{});
        }
        o_.bucket_ns *= 2;
    }
}

void OverviewBuilder::add_span(Overview& o, std::size_t lane, VcpuState s, std::int64_t from, std::int64_t to) {
    auto& b = o.lanes[lane].buckets;
    for (std::size_t i = o.bucket(from); from < to; ++i) {
        const std::int64_t end = std::min(to, o.t0 + static_cast<std::int64_t>(i + 1) * o.bucket_ns);
        b[i].time[static_cast<std::size_t>(s)] += end - from;
        from = end;
    }
}

void OverviewBuilder::add(const Event& e) {
    if (o_.events++ == 0) o_.t0 = e.ts.value();
    const std::int64_t ts = std::max(e.ts.value(), o_.t0);  // a CPU's clock a hair behind the first event's
    o_.last_ts = std::max(o_.last_ts, ts);
    cover(ts);
    if (e.kind == EventKind::Entry || e.kind == EventKind::Exit) {
        const auto id = e.get(e.kind == EventKind::Entry ? slot::entry_vcpu_id : slot::exit_vcpu_id);
        Thread& t = thread(e, id ? static_cast<std::int32_t>(*id) : -1);
        if (id && o_.lanes[t.lane].vcpu_id < 0) o_.lanes[t.lane].vcpu_id = static_cast<std::int32_t>(*id);
        if (t.known && ts > t.since) add_span(o_, t.lane, t.state, t.since, ts);
        t.known = true;
        t.since = ts;
        if (e.kind == EventKind::Entry) {
            t.state = VcpuState::Guest;
        } else {
            t.state = exit_class(e) == ExitClass::Hlt ? VcpuState::Halted : VcpuState::Host;
            ++o_.lanes[t.lane].buckets[o_.bucket(ts)].exits;
        }
    }
    if (o_.events % kPublishEvery == 0) publish();
}

void OverviewBuilder::publish() {
    // each thread's current state lasts at least until the last event read (the
    // timeline's last band lasts to the end of the trace)
    auto copy = std::make_shared<Overview>(o_);
    for (const auto& [tid, t] : threads_)
        if (t.known && copy->last_ts > t.since) add_span(*copy, t.lane, t.state, t.since, copy->last_ts);
    // in vCPU order, as the timeline's lanes (threads that named none last)
    std::stable_sort(copy->lanes.begin(), copy->lanes.end(), [](const OverviewLane& a, const OverviewLane& b) {
        return std::pair{a.vcpu_id < 0, a.vcpu_id} < std::pair{b.vcpu_id < 0, b.vcpu_id};
    });
    std::lock_guard l(m_);
    published_ = std::move(copy);
}

void OverviewBuilder::finish() { publish(); }

std::shared_ptr<const Overview> OverviewBuilder::snapshot() const {
    std::lock_guard l(m_);
    return published_;
}

}  // namespace irqflow::gui
