// Loading a report text with many threads: N and 2N threads (each a vCPU thread with
// an I/O thread beside it), loaded in one run. Attribution must stay linear, so the
// time ratio of 2N to N should stay near 2 (it was ~4 when every thread scanned every
// vCPU). Prints the figures; never asserts on time.
//
//   bench_threads [THREADS]     (default 40000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "irqflow/capture/readers.hpp"

namespace {

std::string write_text(int threads) {
    const auto path = std::filesystem::temp_directory_path() / ("irqflow-bench-threads-" + std::to_string(threads) + ".txt");
    std::ofstream out(path);
    long long us = 1000000;
    char line[160];
    for (int i = 0; i < threads; ++i) {
        const int tid = 1000 + i;
        std::snprintf(line, sizeof line, " qemu-kvm-%d  [000]  %lld.%06lld: kvm_entry: vcpu %d, rip 0x10\n", tid, us / 1000000,
                      us % 1000000, i % 512);
        out << line;
        ++us;
        std::snprintf(line, sizeof line, " qemu-io-%d  [001]  %lld.%06lld: kvm_set_irq: gsi 4 level 1 source 0\n", tid + 5000000,
                      us / 1000000, us % 1000000);
        out << line;
        ++us;
    }
    return path.string();
}

double load_seconds(const std::string& path) {
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        irqflow::Trace t = irqflow::load_trace(path);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 40000;
    const std::string a = write_text(n), b = write_text(2 * n);
    const double ta = load_seconds(a), tb = load_seconds(b);
    std::printf("%-10s %10s %10s\n", "threads", "load s", "ratio");
    std::printf("%-10d %10.3f\n%-10d %10.3f %10.2f   (linear: ~2)\n", n, ta, 2 * n, tb, tb / ta);
    std::filesystem::remove(a);
    std::filesystem::remove(b);
}
