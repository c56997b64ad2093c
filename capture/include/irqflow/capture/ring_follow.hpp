// Following a recording (capture/README.md, "Following a recording"): the ring-buffer
// pages `irqflow record --check` reads from each host CPU, decoded as they come by the
// trace.dat reader's own decoder and merged across CPUs in the order the trace.dat
// reader gives the file (time, then CPU), then attributed and handed over like a
// followed text stream. A CPU's events wait only until every CPU has been read dry past
// their time, so an idle CPU holds nothing back. Memory: one read round's events plus
// the look-ahead window.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "irqflow/capture/follow.hpp"

struct tep_handle;

namespace irqflow {

class LiveFeed;
class RecordDecoder;
struct Batch;

class RingFollow {
public:
    // Pages with the event formats of `tep` (not owned; it must outlive this), `cpus`
    // host CPUs, pages of `page_size` bytes. `meta` describes the recording; `comm`
    // names a thread the first time one is seen (empty: unnamed). `shown` names the
    // pages in messages.
    RingFollow(tep_handle* tep, int cpus, std::uint64_t page_size, TraceMeta meta, std::function<std::string(std::int32_t)> comm,
               std::string shown, const FollowOptions& options = {});
    ~RingFollow();
    RingFollow(const RingFollow&) = delete;
    RingFollow& operator=(const RingFollow&) = delete;

    // The next page read from `cpu`'s buffer. Throws InputError for a page that cannot
    // be right (naming the CPU and the byte in its data).
    void page(int cpu, const void* data);
    // Every CPU was read dry after `before` (the trace clock's time): events older than
    // it are merged out in order, and what the look-ahead has held long enough leaves.
    void drained(TimestampNs before, const LiveHandlers& h);
    // The recording ended: everything goes out.
    void end(const LiveHandlers& h);

    const Trace& trace() const { return t_; }
    std::uint64_t events() const;
    std::uint64_t lost_events() const;
    // Never stalled: a quiet round still moves `delivered` on.
    LiveProgress progress() const;
    // Events that came after a newer event of another CPU had already gone out (an event
    // still being written while its CPU was read); they go out as they come.
    std::uint64_t late_events() const { return late_; }

private:
    void merge(TimestampNs before, const LiveHandlers& h);
    void name_new_threads();

    Trace t_;
    std::uint64_t page_size_;
    std::function<std::string(std::int32_t)> comm_;
    std::string shown_;
    std::vector<std::string> cpu_shown_;       // per CPU: its pages' name in messages
    std::unique_ptr<RecordDecoder> decoder_;
    std::unique_ptr<Batch> batch_;
    std::unique_ptr<LiveFeed> feed_;
    std::function<void(const Event&)> sink_;
    std::vector<std::deque<Event>> queue_;     // per CPU, decoded, not merged yet
    std::vector<std::uint64_t> pages_;         // per CPU: pages seen (for positions)
    std::vector<long long> missed_;            // per CPU: a loss not yet given to a record
    int decoding_cpu_ = 0;
    TimestampNs delivered_{INT64_MIN};         // every CPU's events before this are merged
    std::size_t named_ = 0;                    // batch tids already named
    std::uint64_t next_record_ = 0, late_ = 0;
    TimestampNs last_out_{0};
};

}  // namespace irqflow
