// A trace.dat's ring-buffer pages as `record --check` would read them from a live
// host: each CPU's pages in rounds of trace time, every CPU read dry each round, then
// the round's start (minus the 1 ms record_check allows events in flight) as the point
// every CPU has delivered (ui/pipeline/record.cpp). For the ring-follow tests and the
// record --check bench, which have no live KVM.
#pragma once
#include <traceevent/event-parse.h>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dat/dat_pages.hpp"
#include "dat/dat_validate.hpp"
#include "dat/tracecmd_api.h"
#include "irqflow/capture/ring_follow.hpp"

namespace irqflow::test {

class RingPages {
public:
    // Empty when the file is not one a recording makes (several buffers, or pages the
    // walker does not read).
    static std::optional<RingPages> load(const std::string& path) {
        const DatLayout layout = validate_dat(path);
        if (!pages_readable(layout) || layout.cpu_data.empty()) return std::nullopt;
        for (std::size_t i = 0; i < layout.cpu_data.size(); ++i)
            if (layout.cpu_data[i].cpu != static_cast<int>(i)) return std::nullopt;
        RingPages r;
        r.path_ = path;
        r.page_size_ = layout.page_size;
        r.head_.reset(tracecmd_open_head(path.c_str(), 3));  // no plugins
        if (!r.head_) return std::nullopt;
        r.pages_.resize(layout.cpu_data.size());
        for (std::size_t c = 0; c < layout.cpu_data.size(); ++c) {
            StreamPagesPtr s = open_stream(path, layout, c);
            std::uint64_t at = 0;
            while (const unsigned char* p = next_page(*s, at)) {
                Page page{std::vector<unsigned char>(p, p + layout.page_size), 0};
                std::memcpy(&page.ts, p, 8);  // the page header's time stamp: where it begins
                r.first_ = std::min(r.first_, page.ts);
                r.pages_[c].push_back(std::move(page));
            }
        }
        return r;
    }

    int cpus() const { return static_cast<int>(pages_.size()); }
    // A follower of these pages with the file's own event formats and thread names.
    std::unique_ptr<RingFollow> follower(const FollowOptions& options = {}) const {
        tep_handle* tep = tracecmd_get_tep(head_.get());
        return std::make_unique<RingFollow>(
            tep, cpus(), page_size_, TraceMeta{}, [tep](std::int32_t tid) { return std::string(tep_data_comm_from_pid(tep, tid)); },
            path_, options);
    }
    // Feeds every page in rounds of `round_ns`; `round` runs after each round's drained().
    void feed(RingFollow& ring, const LiveHandlers& h, std::int64_t round_ns, const std::function<void()>& round) const {
        std::vector<std::size_t> next(pages_.size(), 0);
        for (std::int64_t at = first_ + round_ns;; at += round_ns) {
            bool more = false;
            for (std::size_t c = 0; c < pages_.size(); ++c) {
                auto& k = next[c];
                for (; k < pages_[c].size() && pages_[c][k].ts < at; ++k) ring.page(static_cast<int>(c), pages_[c][k].bytes.data());
                more = more || k < pages_[c].size();
            }
            ring.drained(TimestampNs(at - 1000000), h);
            if (round) round();
            if (!more) return;
        }
    }

private:
    struct Page {
        std::vector<unsigned char> bytes;
        std::int64_t ts;
    };
    struct HandleCloser {
        void operator()(tracecmd_input* h) const { tracecmd_close(h); }
    };
    std::string path_;
    std::uint64_t page_size_ = 0;
    std::unique_ptr<tracecmd_input, HandleCloser> head_;
    std::vector<std::vector<Page>> pages_;
    std::int64_t first_ = INT64_MAX;
};

}  // namespace irqflow::test
