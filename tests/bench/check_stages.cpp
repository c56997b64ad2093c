// `check` on a trace.dat, taken apart into its two stages (capture/README.md,
// "Streaming"): the decode stage reads the file twice — the attribution pass, then the
// pass that decodes every event on a thread of its own — and the replay stage replays
// the events the second pass hands over. Printed: each stage alone, and the streamed
// check itself (both at once, wall time), so bench_scale can show how close the
// pipelined check comes to its slower stage.
//
//   bench_check_stages TRACE.dat      prints "stages <events> <pass1 s> <pass2 s> <replay s> <check s>"
#include <cstdio>
#include <string>

#include "clocks.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"

using irqflow::bench::thread_cpu_seconds;
using irqflow::bench::wall_seconds;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_check_stages TRACE.dat\n");
        return 2;
    }
    const std::string file = argv[1];
    // The decode stage alone: both passes, the events handed to nobody.
    double t0 = wall_seconds();
    irqflow::TraceStream decode(file);
    const double pass1 = wall_seconds() - t0;
    std::uint64_t events = 0;
    t0 = wall_seconds();
    decode.each_event([&](const irqflow::Event&) { ++events; });
    const double pass2 = wall_seconds() - t0;
    // The check as `irqflow check` streams it (a batch at a time); the replaying thread's CPU time is the
    // replay stage (the decoding thread feeds it; waiting for a batch costs no CPU).
    t0 = wall_seconds();
    irqflow::TraceStream stream(file);
    irqflow::replay::StreamingReplay replay(stream.trace(), {});
    const double c0 = thread_cpu_seconds();
    stream.each_batch([&](std::span<const irqflow::Event> batch) { replay.feed(batch); });
    const auto result = replay.finish();
    const double replay_cpu = thread_cpu_seconds() - c0;
    const double check = wall_seconds() - t0;
    std::printf("stages %llu %.3f %.3f %.3f %.3f %zu\n", static_cast<unsigned long long>(events), pass1, pass2, replay_cpu, check,
                result.findings.size());
    return 0;
}
