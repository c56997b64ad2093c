// Reader throughput next to `trace-cmd report > /dev/null` on the same files, in one
// run. Prints events/s for both and the ratio; never asserts on time.
//
//   bench_reader [--repeat N] [FILE...]     (default: every trace.dat in samples/)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "irqflow/capture/readers.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Best of n runs: the least disturbed one.
template <class F>
double best_of(int n, F&& f) {
    double best = 1e30;
    for (int i = 0; i < n; ++i) {
        auto t0 = Clock::now();
        f();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    int repeat = 5;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else files.push_back(a);
    }
    if (files.empty()) {
        for (const auto& e : std::filesystem::directory_iterator(IRQFLOW_SAMPLES))
            if (e.path().extension() == ".dat") files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
    }
    std::printf("%-28s %9s %12s %12s %12s %7s %9s\n", "file", "events", "irqflow s", "irqflow ev/s", "report ev/s", "ratio",
                "bytes/ev");
    double sum_ours = 0, sum_report = 0;
    std::uint64_t sum_events = 0;
    for (const auto& f : files) {
        std::uint64_t events = 0;
        std::size_t bytes = 0;  // memory the loaded trace holds: the event store + text payloads
        const double ours = best_of(repeat, [&] {
            irqflow::Trace t = irqflow::load_trace(f);
            events = t.records();
            bytes = t.events.memory_bytes() + t.raw.capacity();
        });
        const std::string cmd = "trace-cmd report '" + f + "' > /dev/null 2>&1";
        const double report = best_of(std::max(1, repeat / 2), [&] {
            if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "trace-cmd report failed on %s\n", f.c_str());
        });
        sum_ours += ours;
        sum_report += report;
        sum_events += events;
        std::printf("%-28s %9llu %12.4f %12.0f %12.0f %6.1fx %9.0f\n", std::filesystem::path(f).filename().c_str(),
                    static_cast<unsigned long long>(events), ours, static_cast<double>(events) / ours,
                    static_cast<double>(events) / report, report / ours, static_cast<double>(bytes) / static_cast<double>(events));
    }
    std::printf("%-28s %9llu %12.4f %12.0f %12.0f %6.1fx\n", "all", static_cast<unsigned long long>(sum_events), sum_ours,
                static_cast<double>(sum_events) / sum_ours, static_cast<double>(sum_events) / sum_report, sum_report / sum_ours);
    return 0;
}
