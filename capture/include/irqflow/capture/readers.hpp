// Readers: each turns one source into a Trace of normalized events. Bad input throws
// InputError naming the file and the position.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

class Attributor;

struct LoadOptions {
    // A trace.dat's headers are first parsed in a forked child, because libtracecmd can
    // crash on corrupt ones. Forking is only safe while the process has one thread
    // (the child may need a lock another thread held: malloc under ASan, the dynamic
    // loader). A program that loads on a background thread calls check_trace_headers
    // on its main thread first, then loads with headers_checked.
    bool headers_checked = false;
    // Keep the info of events irqflow does not model as trace-cmd report prints it
    // (Trace::raw_of), for a trace.dat loaded whole. Text sources always keep it. Off by
    // default: printing costs about a microsecond per event and the text is kept in memory.
    bool other_event_info = false;
};

// trace.dat v6/v7 through libtracecmd; all buffer instances merged in time order.
Trace read_trace_dat(const std::string& path, const LoadOptions& options = {});
// `trace-cmd report` text (any historic column layout, mail-wrapped lines) or
// `perf script` output of kvm:* tracepoints.
Trace read_trace_text(const std::string& path);

// Sniffs the format and calls one of the above; then attributes vCPUs and VMs.
Trace load_trace(const std::string& path, const LoadOptions& options = {});
// The checks load_trace starts with, header probe included (nothing more for text):
// throws the same InputError load_trace would.
void check_trace_headers(const std::string& path);

using EventSink = std::function<void(const Event&)>;
// Events decoded in place into the caller's batch: appended to *into (reserved for
// `limit`), `full` called whenever it holds `limit` of them (it leaves *into empty).
// What is left at the end stays in *into.
struct EventBatches {
    std::vector<Event>* into;
    std::size_t limit;
    std::function<void()> full;
};
// Events in order, a batch at a time (one call per batch, not per event).
using BatchSink = std::function<void(std::span<const Event>)>;

// Event heads in order, a batch at a time.
using HeadSink = std::function<void(std::span<const EventHead>)>;
// Heads read in consecutive parts at once, each part's in order into a sink of its own
// (every head of part i comes before every head of part i + 1 in the trace). start(n)
// gives the n parts' sinks before any head is handed over; it may be called again, with
// 1, when the parts did not add up: the heads handed over until then are to be forgotten.
struct HeadParts {
    std::function<std::vector<HeadSink>(std::size_t parts)> start;
};

// What a caller may watch of TraceStream's first pass.
struct FirstPass {
    // Each event as it is read, not yet attributed, with fields decoded only for
    // kvm_entry, kvm_exit, accepts and EOIs: enough for an overview while the second pass
    // is still to come (the GUI's, ui/README.md). Watching costs that pass its speed.
    const EventSink* events = nullptr;
    // The records read so far, every 65,536 and at the end, on the constructing thread:
    // for a progress line.
    std::function<void(std::uint64_t)> count;
};

// A trace handed over event by event, attributed, without holding its events (what
// check/stats need for traces too big to keep). Constructing it reads a trace.dat once
// to learn the vCPUs, VMs and drop windows (memory per thread and vCPU, not per event);
// each_event() reads it again and hands each event, in order, with its VM and vCPU.
// Text is loaded whole (report excerpts are small) and handed over the same way.
class TraceStream {
public:
    // Reads the file once to learn which thread runs which vCPU (trace.dat), watched as
    // `first_pass` says.
    explicit TraceStream(const std::string& path, const LoadOptions& options = {}, const FirstPass& first_pass = {});
    ~TraceStream();
    TraceStream(const TraceStream&) = delete;
    TraceStream& operator=(const TraceStream&) = delete;
    // Everything but the events: meta, names, VMs, drop windows, comms, source lines.
    const Trace& trace() const { return t_; }
    void each_event(const EventSink& on_event);
    // The same events, as the decoding thread hands them over: a batch at a time.
    void each_batch(const BatchSink& on_batch);

private:
    std::string path_;
    LoadOptions options_;
    bool dat_ = false;
    Trace t_;
    std::unique_ptr<Attributor> attributor_;  // learnt in the first pass (trace.dat)
};

// Gives events their vCPU and VM (capture/README.md, "vCPU attribution") and fills
// Trace::vms. load_trace calls it.
void attribute(Trace& trace);

}  // namespace irqflow
