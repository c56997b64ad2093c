// Our ring-buffer page walker (capture/src/dat/dat_pages.cpp) next to libtraceevent's kbuffer
// on the same pages of a real, uncompressed trace.dat (make_big_dat writes one): both
// must find the same records with the same timestamps, and the events/s of each walk say
// whether ours still earns its place (capture/README.md, "Readers"). Prints; asserts
// nothing.
//
//   bench_pages FILE.dat
#include <fcntl.h>
#include <unistd.h>
extern "C" {  // the header has no C++ guard
#include <traceevent/kbuffer.h>
}

#include <chrono>
#include <cstdio>
#include <vector>

#include "dat/dat_pages.hpp"
#include "dat/dat_validate.hpp"

using namespace irqflow;
using Clock = std::chrono::steady_clock;

namespace {

struct Walk {
    std::uint64_t records = 0, ts_sum = 0;
    double seconds = 0;
};

Walk ours(const std::string& file, const DatLayout& layout) {
    Walk w;
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < layout.cpu_data.size(); ++i) {
        auto pages = open_stream(file, layout, i);
        StreamCursor cursor(*pages, layout.page_size, 8);
        RawRecord rec{};
        while (cursor.next(rec)) {
            ++w.records;
            w.ts_sum += rec.ts;
        }
    }
    w.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return w;
}

Walk with_kbuffer(const std::string& file, const DatLayout& layout) {
    Walk w;
    const auto t0 = Clock::now();
    const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    std::vector<unsigned char> page(layout.page_size);
    kbuffer* kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
    for (const CpuData& d : layout.cpu_data)
        for (std::uint64_t at = d.offset; at + layout.page_size <= d.offset + d.size; at += layout.page_size) {
            // page by page with pread, as ours reads an uncompressed file
            if (pread(fd, page.data(), page.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(page.size())) break;
            if (kbuffer_load_subbuffer(kb, page.data()) < 0) break;
            unsigned long long ts = 0;
            for (void* data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
                ++w.records;
                w.ts_sum += ts;
            }
        }
    kbuffer_free(kb);
    close(fd);
    w.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return w;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_pages FILE.dat (uncompressed)\n");
        return 64;
    }
    const std::string file = argv[1];
    const DatLayout layout = validate_dat(file);
    if (layout.compressed || !pages_readable(layout)) {
        std::fprintf(stderr, "bench_pages: %s is compressed or not readable page by page\n", file.c_str());
        return 2;
    }
    Walk a, b;
    double best_a = 1e30, best_b = 1e30;
    for (int run = 0; run < 3; ++run) {  // alternating, best of three each
        a = ours(file, layout);
        b = with_kbuffer(file, layout);
        best_a = std::min(best_a, a.seconds);
        best_b = std::min(best_b, b.seconds);
    }
    std::printf("ours:    %llu records in %.3f s: %.1f M records/s\n", static_cast<unsigned long long>(a.records), best_a,
                static_cast<double>(a.records) / best_a / 1e6);
    std::printf("kbuffer: %llu records in %.3f s: %.1f M records/s\n", static_cast<unsigned long long>(b.records), best_b,
                static_cast<double>(b.records) / best_b / 1e6);
    std::printf("same records and timestamps: %s; ours / kbuffer speed: %.2fx\n",
                a.records == b.records && a.ts_sum == b.ts_sum ? "yes" : "NO", best_b / best_a);
    return 0;
}
