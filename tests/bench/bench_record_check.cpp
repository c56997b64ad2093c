// What `record --check` costs the host it runs on, without a live KVM: the pages of a
// real `irqflow record --check` run (samples/livecheck.dat.zst, partial pages and all)
// fed in 50 ms rounds through RingFollow and the live check, as record_check does
// between two read rounds, against the offline check of the same file in the same run.
// Prints CPU seconds per million events of each and their ratio; asserts nothing. (The
// kernel's side — copying pages out of the ring buffer — is not in it.)
//
//   bench_record_check [--events N]   (default 10 M: the sample repeated)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "clocks.hpp"
#include "pipeline.hpp"
#include "ring_pages.hpp"
#include "zst_sample.hpp"

using namespace irqflow;

using bench::process_cpu_seconds;

int main(int argc, char** argv) {
    std::uint64_t target = 10000000;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--events") == 0) target = std::strtoull(argv[i + 1], nullptr, 10);
    const std::string dat = "/tmp/irqflow-bench-livecheck-" + std::to_string(getpid()) + ".dat";
    if (!test::inflate_zst(std::string(IRQFLOW_SAMPLES) + "/livecheck.dat.zst", dat)) {
        std::fprintf(stderr, "bench_record_check: cannot inflate samples/livecheck.dat.zst\n");
        return 2;
    }
    const auto pages = test::RingPages::load(dat);
    if (!pages) return 2;

    std::uint64_t live_events = 0, findings = 0;
    int reps = 0;
    const double t0 = process_cpu_seconds();
    while (live_events < target) {
        const auto ring = pages->follower();
        const pipeline::LiveWatch watch;
        pipeline::LiveCheck check(ring->trace(), {}, watch, {});
        pages->feed(*ring, check.handlers(), 50000000, [&] { check.tick(ring->progress()); });
        ring->end(check.handlers());
        const auto c = check.finish();
        live_events += ring->events();
        findings += c.result.findings.size();
        ++reps;
    }
    const double live_cpu = process_cpu_seconds() - t0;

    std::uint64_t offline_events = 0;
    const double t1 = process_cpu_seconds();
    for (int r = 0; r < reps; ++r) {
        std::uint64_t n = 0;
        pipeline::Watch w;
        const EventSink count = [&n](const Event&) { ++n; };
        w.event = count;
        const auto c = pipeline::check({dat, "", {}}, {}, pipeline::Hold::AsNeeded, w);
        offline_events += n;
    }
    const double offline_cpu = process_cpu_seconds() - t1;
    std::remove(dat.c_str());

    const double live_per_m = live_cpu / (static_cast<double>(live_events) / 1e6);
    const double offline_per_m = offline_cpu / (static_cast<double>(offline_events) / 1e6);
    std::printf("record --check, checker side: %llu events (livecheck.dat's pages x %d, 50 ms rounds), %llu findings\n",
                static_cast<unsigned long long>(live_events), reps, static_cast<unsigned long long>(findings));
    std::printf("  live (RingFollow + LiveCheck): %.3f CPU s per million events (%.2f M events per CPU second)\n", live_per_m, 1 / live_per_m);
    std::printf("  offline check of the same file: %.3f CPU s per million events\n", offline_per_m);
    std::printf("  live / offline CPU: %.2f\n", live_per_m / offline_per_m);
    return 0;
}
