#include "merge_streams.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <thread>

namespace irqflow {
namespace {

// Where a stream's part of a split read ends (the earlier part) or begins (the later):
// the first record at or after the split time — its page, its end in that page and the
// drop count it carries —, or none when the stream ends before it. Both parts must find
// the same record for every stream, or the parts do not add up to the stream.
struct SplitPoint {
    bool found = false;
    std::uint64_t page = 0, end = 0;
    long long missed = 0;
    bool operator==(const SplitPoint&) const = default;
};

// What of each stream a merge reads: all of it, the records before its first one at or
// after `until` (the earlier part), or from its first record at or after `from` on (the
// later part). `points` gets where each stream was cut.
struct Range {
    std::uint64_t from = 0;
    std::uint64_t until = UINT64_MAX;
    std::vector<SplitPoint>* points = nullptr;
};

SplitPoint point_at(bool found, const StreamCursor& c, const RawRecord& rec) {
    if (!found) return {};
    const auto [page, end] = c.where();
    return {true, page, end, rec.missed};
}

void merge(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, Batch& out, const Range& range) {
    // The next record is the earliest head of all the CPUs' streams (the lowest CPU
    // index among equal timestamps). After picking a stream, the best of the others is
    // found once, and the picked stream goes on for as long as its records still come
    // first: a CPU's records come in runs, and a scan of every CPU per record (with a
    // std::vector<bool> of the live ones) was a tenth of the reader's instructions.
    const std::size_t n = streams.size();
    std::vector<StreamCursor> cursors;
    std::vector<RawRecord> head(n);
    std::vector<std::uint8_t> live(n);
    const bool cut = range.until != UINT64_MAX;
    if (range.points) range.points->assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
        cursors.emplace_back(*streams[i], layout.page_size, decoder.long_size());
        bool more = cursors[i].next(head[i]);
        if (range.from > 0) {  // what comes before is the earlier part's
            while (more && head[i].ts < range.from) more = cursors[i].next(head[i]);
            if (range.points) (*range.points)[i] = point_at(more, cursors[i], head[i]);
        }
        live[i] = more && head[i].ts < range.until ? 1 : 0;
        if (cut && range.points) (*range.points)[i] = point_at(more && !live[i], cursors[i], head[i]);
    }
    auto earliest = [&](std::size_t skip) {
        std::size_t best = n;
        for (std::size_t i = 0; i < n; ++i)
            if (i != skip && live[i] && (best == n || head[i].ts < head[best].ts)) best = i;
        return best;
    };
    for (std::size_t best = earliest(n); best != n;) {
        const std::size_t next = earliest(best);  // where the run of `best` ends
        for (;;) {
            decoder.decode(head[best], out);
            if (!cursors[best].next(head[best])) {
                live[best] = 0;
                break;
            }
            if (head[best].ts >= range.until) [[unlikely]] {  // the later part's first record
                live[best] = 0;
                if (range.points) (*range.points)[best] = point_at(true, cursors[best], head[best]);
                break;
            }
            if (next != n && (head[next].ts < head[best].ts || (head[next].ts == head[best].ts && next < best))) break;
        }
        best = earliest(n);
    }
}

// Below this much page data, or 64 pages per stream (the split reads a few dozen page
// headers of each: a host of many CPUs with a few pages each), one thread reads the
// heads sooner than two start and meet.
constexpr std::uint64_t kSplitBytes = 256 * 1024, kSplitPagesPerStream = 64;
constexpr std::uint64_t kSampledPages = 64;  // page headers read per stream to place the split

// A time that splits the streams' pages about in half (from up to kSampledPages page
// headers per stream), or none for streams too small to split.
std::optional<std::uint64_t> split_time(const std::vector<StreamPagesPtr>& streams, std::uint64_t page_size) {
    std::uint64_t total = 0;
    for (const auto& s : streams) total += page_count(*s);
    if (total * page_size < kSplitBytes || total < kSplitPagesPerStream * streams.size()) return std::nullopt;
    struct Sample {
        std::uint64_t time, pages;  // a page header's time, and the pages it stands for
    };
    std::vector<Sample> samples;
    for (const auto& s : streams) {
        const std::uint64_t n = page_count(*s), k = std::min(n, kSampledPages);
        for (std::uint64_t j = 0; j < k; ++j) samples.push_back({page_time(*s, j * n / k), (j + 1) * n / k - j * n / k});
    }
    std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.time < b.time; });
    std::uint64_t below = 0;
    for (const Sample& s : samples) {
        below += s.pages;
        if (2 * below >= total) return s.time > 0 ? std::optional(s.time) : std::nullopt;
    }
    return std::nullopt;
}

// The page a stream's later part starts reading at: the one before the first page whose
// header time is at or after `t` (records in it may already be at or after `t`).
std::uint64_t start_page(const StreamPages& s, std::uint64_t t) {
    std::uint64_t lo = 0, hi = page_count(s);
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (page_time(s, mid) < t) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 ? lo - 1 : 0;
}

// `part` set up as `whole` for heads: the same slots, its own sink.
void heads_like(Batch& part, const Batch& whole, const HeadSink* sink) {
    part.field_kinds = whole.field_kinds;
    part.head_slot = whole.head_slot;
    part.heads = sink;
}

void absorb(Batch& whole, const Batch& part) {
    whole.tids.insert(whole.tids.end(), part.tids.begin(), part.tids.end());
    whole.added += part.added;
    whole.next_record += part.next_record;
}

struct Cancelled {};

// The two parts at once; false when they do not meet (a stream whose times go back
// across the split), and the heads must be read again whole.
bool decode_split(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, const HeadParts& parts,
                  Batch& out, std::uint64_t t) {
    std::vector<StreamPagesPtr> later;
    for (const auto& s : streams) later.push_back(from_page(*s, start_page(*s, t)));
    const std::vector<HeadSink> sinks = parts.start(2);
    std::atomic<bool> stop{false};  // the earlier part failed: the later one's heads are not wanted
    const HeadSink late_sink = [&](std::span<const EventHead> heads) {
        if (stop.load(std::memory_order_relaxed)) throw Cancelled{};
        sinks[1](heads);
    };
    auto early = std::make_unique<Batch>(), late = std::make_unique<Batch>();
    heads_like(*early, out, &sinks[0]);
    heads_like(*late, out, &late_sink);
    std::vector<SplitPoint> ends, starts;
    std::exception_ptr late_error;
    std::thread second([&] {
        try {
            merge(later, layout, decoder, *late, {.from = t, .points = &starts});
            late->flush_heads();
        } catch (...) {
            late_error = std::current_exception();
        }
    });
    try {
        merge(streams, layout, decoder, *early, {.until = t, .points = &ends});
        early->flush_heads();
    } catch (...) {  // the error the whole read would have met first
        stop = true;
        second.join();
        throw;
    }
    second.join();
    if (late_error) std::rethrow_exception(late_error);
    if (ends != starts) return false;
    absorb(out, *early);
    absorb(out, *late);
    return true;
}

}  // namespace

void decode_merged(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, Batch& out) {
    merge(streams, layout, decoder, out, {});
}

void decode_heads(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, const HeadParts& parts,
                  Batch& out) {
    if (const auto t = split_time(streams, layout.page_size)) {
        if (decode_split(streams, layout, decoder, parts, out, *t)) return;
        for (auto& s : streams) rewind(*s);
    }
    const std::vector<HeadSink> sinks = parts.start(1);
    out.heads = &sinks[0];
    merge(streams, layout, decoder, out, {});
    out.flush_heads();
    out.heads = nullptr;
}

}  // namespace irqflow
