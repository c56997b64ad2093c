#include "irqflow/capture/ring_follow.hpp"

#include "../dat/dat_pages.hpp"
#include "../dat/record_decoder.hpp"
#include "irqflow/capture/error.hpp"
#include "live_feed.hpp"

namespace irqflow {

RingFollow::RingFollow(tep_handle* tep, int cpus, std::uint64_t page_size, TraceMeta meta,
                       std::function<std::string(std::int32_t)> comm, std::string shown, const FollowOptions& options)
    : page_size_(page_size), comm_(std::move(comm)), shown_(std::move(shown)), queue_(static_cast<std::size_t>(cpus)),
      pages_(static_cast<std::size_t>(cpus), 0), missed_(static_cast<std::size_t>(cpus), 0) {
    t_.meta = std::move(meta);
    t_.meta.host_cpus = cpus;
    for (int c = 0; c < cpus; ++c) cpu_shown_.push_back(shown_ + " (CPU " + std::to_string(c) + ")");
    decoder_ = std::make_unique<RecordDecoder>(tep, t_, shown_, page_size_);
    feed_ = std::make_unique<LiveFeed>(t_, options);
    batch_ = std::make_unique<Batch>();
    sink_ = [this](const Event& e) { queue_[static_cast<std::size_t>(decoding_cpu_)].push_back(e); };
    batch_->sink = &sink_;
}

RingFollow::~RingFollow() = default;

std::uint64_t RingFollow::events() const { return feed_->events(); }
std::uint64_t RingFollow::lost_events() const { return feed_->lost_events(); }

void RingFollow::page(int cpu, const void* data) {
    if (cpu < 0 || static_cast<std::size_t>(cpu) >= queue_.size())
        throw InputError(shown_, {}, "a page from CPU " + std::to_string(cpu) + " of a " + std::to_string(queue_.size()) + "-CPU recording");
    const auto c = static_cast<std::size_t>(cpu);
    const std::uint64_t at = pages_[c]++ * page_size_;
    decoding_cpu_ = cpu;
    walk_page(static_cast<const unsigned char*>(data), page_size_, decoder_->long_size(), cpu, at, missed_[c],
              cpu_shown_[c], [this](const RawRecord& rec) { decoder_->decode(rec, *batch_); });
    name_new_threads();
}

void RingFollow::name_new_threads() {
    for (; named_ < batch_->tids.size(); ++named_) {
        const std::int32_t tid = batch_->tids[named_];
        if (tid < 0 || t_.comms.count(tid)) continue;
        std::string name = comm_ ? comm_(tid) : std::string();
        t_.comms[tid] = name.empty() ? "<...>" : name;
    }
}

// The trace.dat reader's order (dat_reader.cpp, decode_merged): the oldest head first,
// the lowest CPU on a tie; records numbered as they go out, a lost-event marker
// sharing the number of the record it precedes.
void RingFollow::merge(TimestampNs before, const LiveHandlers& h) {
    for (;;) {
        std::size_t best = queue_.size();
        for (std::size_t i = 0; i < queue_.size(); ++i)
            if (!queue_[i].empty() && (best == queue_.size() || queue_[i].front().ts < queue_[best].front().ts)) best = i;
        if (best == queue_.size() || queue_[best].front().ts >= before) break;
        Event e = queue_[best].front();
        queue_[best].pop_front();
        if (e.ts < last_out_) ++late_;
        else last_out_ = e.ts;
        e.record = e.kind == EventKind::Lost ? next_record_ : next_record_++;
        feed_->arrived(e, h);
    }
    delivered_ = std::max(delivered_, before);
    feed_->release(false, h, before);  // every CPU delivered what came before the round
}

void RingFollow::drained(TimestampNs before, const LiveHandlers& h) { merge(before, h); }

void RingFollow::end(const LiveHandlers& h) {
    merge(TimestampNs(INT64_MAX), h);
    feed_->end();
    feed_->release(true, h);
}

LiveProgress RingFollow::progress() const { return {events(), lost_events(), delivered_, false}; }

}  // namespace irqflow
