// Replay throughput: a real capture repeated until the stream holds ~10 M events
// (timestamps shifted so it stays ordered), replayed end to end. Rows, best of 3:
//   decode  the compact store decoded into batches of events, alone (one core)
//   replay  the replay stage as `check` runs it: the events decoded on another thread
//           and handed over in batches (EventPipe); the replaying thread's CPU time
//   piped   the two together, wall time, and how it compares with the slower stage
//   serial  decode and replay on one core, one after the other (replay::replay)
// With --instructions (run under callgrind by the `bench` target) it prints instead the
// replay stage's instructions per event, with every rule, with none, and what each rule
// adds (the stage with all rules less the stage without that one): deterministic where
// the timings of a shared 2-core machine are not.
//
//   bench_replay [--events N] [FILE]                  (default: samples/pveoi-on.dat, 10 M events)
//   valgrind --tool=callgrind --collect-atstart=no '--toggle-collect=*feed_stage*'
//            --callgrind-out-file=DIR/cg bench_replay --instructions DIR   (one command)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define IRQFLOW_HAVE_CALLGRIND 1
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "irqflow/capture/batch_pipe.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "clocks.hpp"
#include "repeat_trace.hpp"

namespace {

using irqflow::Event;
using irqflow::EventPipe;
using irqflow::Trace;
namespace replay = irqflow::replay;

using irqflow::bench::thread_cpu_seconds;
using irqflow::bench::wall_seconds;

// The store decoded into pipe-sized batches, each handed to `sink`, which returns the
// (empty) batch to fill next.
template <class Sink>
void decode_batches(const Trace& t, Sink&& sink) {
    std::vector<Event> batch;
    batch.reserve(EventPipe::kBatch);
    t.events.for_each([&](const Event& e) {
        batch.push_back(e);
        if (batch.size() == EventPipe::kBatch) batch = sink(std::move(batch));
    });
    if (!batch.empty()) sink(std::move(batch));
}

struct Piped {
    double wall = 0, replay_cpu = 0, decode_cpu = 0;
    std::size_t findings = 0;
};

// The two stages on two threads, as TraceStream runs them for `check`.
Piped piped(const Trace& t, const replay::ReplayOptions& o) {
    EventPipe pipe;
    Piped p;
    const double t0 = wall_seconds();
    std::thread decoder([&] {
        const double c0 = thread_cpu_seconds();
        decode_batches(t, [&](std::vector<Event>&& b) {
            pipe.push(std::move(b));
            return pipe.take_empty();
        });
        pipe.close();
        p.decode_cpu = thread_cpu_seconds() - c0;
    });
    const double c0 = thread_cpu_seconds();
    replay::StreamingReplay r(t, o);
    EventPipe::Batch batch;
    while (pipe.pop(batch)) r.feed(std::span<const Event>(batch));
    p.findings = r.finish().findings.size();
    p.replay_cpu = thread_cpu_seconds() - c0;
    decoder.join();
    p.wall = wall_seconds() - t0;
    return p;
}

// The replay stage on events decoded beforehand: what callgrind counts (the events fed;
// the end of the replay, whose cost does not grow with the stream, is left out).
[[gnu::noinline]] void feed_stage(replay::StreamingReplay& r, const std::vector<std::vector<Event>>& batches) {
    for (const auto& b : batches) r.feed(std::span<const Event>(b));
}

unsigned long long dumped_instructions(const std::string& dir, int dump) {
    // callgrind names the n-th dump of --callgrind-out-file=DIR/cg DIR/cg.n
    std::ifstream in(dir + "/cg." + std::to_string(dump));
    for (std::string line; std::getline(in, line);)
        if (line.rfind("totals: ", 0) == 0 || line.rfind("summary: ", 0) == 0) return std::strtoull(line.c_str() + line.find(' ') + 1, nullptr, 10);
    return 0;
}

#ifndef IRQFLOW_HAVE_CALLGRIND
int instructions(const Trace&, const std::string&) {
    std::fprintf(stderr, "bench_replay --instructions: built without valgrind's headers (install valgrind)\n");
    return 2;
}
#else
int instructions(const Trace& big, const std::string& dir) {
    if (!RUNNING_ON_VALGRIND) {
        std::fprintf(stderr, "bench_replay --instructions runs under callgrind (see the header of bench_replay.cpp)\n");
        return 2;
    }
    std::vector<std::vector<Event>> batches;
    decode_batches(big, [&](std::vector<Event>&& b) {
        batches.push_back(std::move(b));
        std::vector<Event> next;
        next.reserve(EventPipe::kBatch);
        return next;
    });
    const double n = static_cast<double>(big.events.size());
    int dumps = 0;
    auto count = [&](const replay::ReplayOptions& o) {
        replay::StreamingReplay r(big, o);
        feed_stage(r, batches);  // counted (--toggle-collect), then dumped
        CALLGRIND_DUMP_STATS;
        r.finish();
        return static_cast<double>(dumped_instructions(dir, ++dumps)) / n;
    };
    replay::ReplayOptions all;
    const double with_all = count(all);
    replay::ReplayOptions none;
    none.rules.reset();
    const double without = count(none);
    std::printf("replay stage, instructions per event fed (callgrind, %zu events): %.0f with every rule, %.0f with none\n", big.events.size(),
                with_all, without);
    std::printf("what each rule adds, instructions per event (all rules less all but that one):\n");
    for (const auto& info : replay::all_rules()) {
        replay::ReplayOptions o;
        o.rules.reset(static_cast<std::size_t>(info.rule));
        std::printf("  %-28s %6.1f\n", std::string(info.id).c_str(), with_all - count(o));
    }
    return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    std::size_t target = 10'000'000;
    std::string file = std::string(IRQFLOW_SAMPLES) + "/pveoi-on.dat";
    std::string instructions_dir;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--instructions" && i + 1 < argc) instructions_dir = argv[++i];
        else file = a;
    }
    if (!instructions_dir.empty() && target == 10'000'000) target = 500'000;  // callgrind runs ~50x slower
    const Trace base = irqflow::load_trace(file);
    const Trace big = irqflow::bench::repeat_trace(base, target);
    if (!instructions_dir.empty()) return instructions(big, instructions_dir);

    const double n = static_cast<double>(big.events.size());
    double decode = 1e30, serial = 1e30;
    Piped best{1e30, 1e30, 1e30, 0};
    std::size_t findings = 0;
    for (int run = 0; run < 3; ++run) {
        double c0 = thread_cpu_seconds();
        std::size_t sink = 0;
        decode_batches(big, [&](std::vector<Event>&& b) {
            sink += b.size();
            b.clear();
            return std::move(b);
        });
        decode = std::min(decode, thread_cpu_seconds() - c0);
        const Piped p = piped(big, {});
        best.wall = std::min(best.wall, p.wall);
        best.replay_cpu = std::min(best.replay_cpu, p.replay_cpu);
        best.decode_cpu = std::min(best.decode_cpu, p.decode_cpu);
        findings = p.findings;
        c0 = thread_cpu_seconds();
        const auto r = replay::replay(big);
        serial = std::min(serial, thread_cpu_seconds() - c0);
        if (r.findings.size() != findings || sink != big.events.size()) {
            std::fprintf(stderr, "bench_replay: the piped replay found %zu findings, the serial one %zu\n", findings, r.findings.size());
            return 1;
        }
    }
    std::printf("bench_replay: %zu events (%s x%zu), best of 3, %zu findings\n", big.events.size(), file.c_str(),
                big.events.size() / base.events.size(), findings);
    std::printf("  decode  %.3f s CPU  %6.1f M events/s  (the store into batches, alone)\n", decode, n / decode / 1e6);
    std::printf("  replay  %.3f s CPU  %6.1f M events/s  (the replay stage on one core, fed by the decoding thread)\n", best.replay_cpu,
                n / best.replay_cpu / 1e6);
    const double slower = std::max(best.replay_cpu, decode);
    std::printf("  piped   %.3f s wall %6.1f M events/s  = %.2f x the slower stage alone\n", best.wall, n / best.wall / 1e6, best.wall / slower);
    std::printf("  serial  %.3f s CPU  %6.1f M events/s  (decode and replay one after the other on one core)\n", serial, n / serial / 1e6);
    return 0;
}
