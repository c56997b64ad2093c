// The use cases above the layers (ui/README.md, "Pipeline"): check a trace, import a
// trace, replay a stored session, follow a stream of events. The CLI's commands and the
// GUI's loader call these instead of wiring capture, replay and storage each their own
// way; a caller watches the stages through hooks and owns only what it shows.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "irqflow/capture/follow.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/store.hpp"

namespace irqflow::pipeline {

// A trace to read: a path the readers can open (a pipe already copied to a file), the
// guest's console log to align with it (optional), the guest's own trace to put on its
// clock and replay beside it (optional; a readable path too), how to load it.
struct Source {
    std::string trace;
    std::string serial;
    LoadOptions load;
    std::string guest{};
};

// The stages after the trace is known, for a progress display.
enum class Stage { Serial, Guest, Replay };

// What a caller may watch while a trace goes through. Every hook is optional.
struct Watch {
    // A trace.dat's first pass (TraceStream's FirstPass): each event as read, not yet
    // attributed (an overview while the second pass is to come), or a count for a
    // progress line.
    FirstPass first_pass;
    // The trace is known (meta, vCPUs, VMs, drop windows): streamed, its events are to
    // come; read whole, they are read.
    std::function<void(const Trace&)> known;
    // Each attributed event, in order, as the replay takes it.
    EventSink event;
    // Aligning the serial log (only when there is one), replaying.
    std::function<void(Stage)> entered;
};

// Follow a stream: events fed one by one as a source yields them, in bounded memory
// (per vCPU and vector, never per event: replay/README.md, "Streaming").
class Follow {
public:
    Follow(const Trace& known, const replay::ReplayOptions& options) : replay_(known, options) {}
    void feed(const Event& e) { replay_.feed(e); }
    void feed(std::span<const Event> events) { replay_.feed(events); }
    replay::ReplayResult finish() { return replay_.finish(); }

private:
    replay::StreamingReplay replay_;
};


// A trace checked: the trace (its events only when it was held whole), the serial log
// aligned with it, the guest's trace on its clock and how it got there, the replay's result.
struct Checked {
    Trace trace;
    std::optional<SerialLog> serial{};
    std::optional<GuestTrace> guest{};
    GuestClock guest_clock{};
    replay::ReplayResult result{};
};

// How a check holds the trace. Streamed unless the serial log or the guest's trace
// (whose alignments need every event) or the caller needs the events afterwards.
enum class Hold { AsNeeded, Whole };

// Reads the trace whole and aligns the serial log and the guest's trace, if any, with
// it (a guest trace that cannot be aligned is an InputError naming it). With a
// first-pass hook the trace is streamed into memory so that the hook sees events at once.
Checked load(const Source& source, const Watch& watch = {});
// Check a trace: load (or stream) it and replay every vCPU.
Checked check(const Source& source, const replay::ReplayOptions& options, Hold hold = Hold::AsNeeded, const Watch& watch = {});

// A live check (ui/README.md, "Live check"): report text read from `fd` as it is
// written, replayed as it comes, each finding handed to `found` once it is settled —
// when `settle_events` more events or `settle` of trace time went by since the replay
// found it (so a later IPI decision can still make it a follow-on first), when the
// source's input stalls, or at the end. `status` is called about once a second. Returns like check(): the trace
// (meta, VMs, no events) and the result.
struct LiveWatch {
    std::function<void(const replay::Finding&, std::size_t index, const Trace&)> found;
    std::function<void(std::uint64_t events, std::uint64_t lost, std::size_t findings)> status;
};
struct LiveOptions {
    FollowOptions follow;
    std::uint64_t settle_events = 65536;
    std::chrono::milliseconds settle{300};
};
Checked check_live(const std::string& shown, int fd, const replay::ReplayOptions& options, const LiveWatch& watch,
                   const LiveOptions& live = {});

// The half of a live check after its source (pipeline/live.cpp): the incremental
// replay, told of vCPUs and drops as the source learns them, and the settling of its
// findings. `names`: the source's trace (names, VMs), which must outlive this.
class LiveCheck {
public:
    LiveCheck(const Trace& names, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live);
    ~LiveCheck();
    LiveCheck(const LiveCheck&) = delete;
    LiveCheck& operator=(const LiveCheck&) = delete;
    // What the source hands its events to.
    const LiveHandlers& handlers() const { return h_; }
    // Between the source's steps: settled findings go out, the status about once a second.
    void tick(const LiveProgress& source);
    // The source ended: the replay decides what waited for more evidence, every finding
    // not handed over yet goes out, in order.
    Checked finish();

private:
    struct Pending {
        std::size_t index;
        std::uint64_t at_event;
        TimestampNs at_ts;  // how far the input was in when it was found
    };
    void settle(bool all);

    const Trace& names_;
    const LiveWatch& watch_;
    LiveOptions live_;
    std::unique_ptr<replay::StreamingReplay> replay_;
    LiveHandlers h_;
    std::deque<Pending> pending_;
    std::size_t seen_ = 0;  // findings taken into pending_
    std::uint64_t fed_ = 0;
    TimestampNs horizon_{INT64_MIN};  // how far the input is in: the latest event time fed, or the source's
    bool stalled_ = false;            // during tick(): the source's input stalled
    std::chrono::steady_clock::time_point last_status_;
};

// `irqflow record --check` (ui/README.md, "Live check"): records as irqflow_record does
// and checks the ring-buffer pages as they are read (capture's RingFollow), findings
// handed to `watch.found` as for check_live. `started` learns the command's pid (-1:
// none) before tracing starts; `stop` is asked after every read round and ends the
// recording (the trace.dat is still written) when it says so. A recording that could
// not be made throws RecordError; the check of one that was made is in `checked`.
struct RecordCheck {
    std::string output;
    double duration_s = 0;
    int pid = 0, buffer_kb = 0;
    std::vector<std::string> command;
    bool leave_command = false;  // ended by `stop`: leave the command as it is (not SIGTERM)
    std::function<void(int pid)> started;
    std::function<bool()> stop;
};
struct RecordError : std::runtime_error {
    RecordError(int code, const std::string& what) : std::runtime_error(what), status(code) {}
    int status;  // irqflow_record_status
};
struct Recorded {
    Checked checked;
    struct Cpu {
        std::uint64_t recorded = 0, overrun = 0, dropped = 0;
    };
    std::vector<Cpu> cpus;
    std::uint64_t lost = 0, late = 0;
    int command_status = -1, stopped_by = 0;
    bool command_stopped = false, stopped_by_check = false;
};
Recorded record_check(const RecordCheck& request, const replay::ReplayOptions& options, const LiveWatch& watch,
                      const LiveOptions& live = {});
// `irqflow record` without a check (the hooks, `started`, `stop` are not used).
Recorded record(const RecordCheck& request);

// Replay a stored session with the PV EOI semantics it was imported with, details
// collected (what diff, push and the GUI need).
struct Replayed {
    storage::StoredSession stored;
    replay::ReplayResult result;
};
struct StoredWatch {
    std::function<void(const storage::ImportProgress&)> progress;
    EventSink event;                     // each event as it is read, in order
    std::function<void()> read;          // all read; the replay is next
};
Replayed replay_stored(storage::Store& store, const std::string& id_or_name, const StoredWatch& watch = {});

// The steps of an import, for a progress display. `counts`: the step goes through events.
class Steps {
public:
    virtual ~Steps() = default;
    virtual void begin(std::string what, bool counts = true) = 0;
    virtual void progress(std::uint64_t done, std::uint64_t total) = 0;
    virtual void end() = 0;
};

struct ImportRequest {
    Source source;
    std::string shown;      // the trace's name as the user gave it (a pipe's copy means nothing later)
    std::string guest_shown{};  // the guest trace's (source.guest), likewise
    std::string name;       // the session's
    storage::NameClash clash = storage::NameClash::Suffix;
    replay::ReplayOptions replay;
    // The session's metadata from the trace's and the serial log's (null: none).
    std::function<storage::SessionMeta(const TraceMeta&, const SerialLog*)> meta;
};
struct Imported {
    std::int64_t id = 0;
    std::string name;  // as stored: the requested one, or with a suffix
    std::uint64_t records = 0;
    std::size_t findings = 0;
};

// Import a trace into a store. Constructing it checks the trace's headers (in a child,
// while the process has one thread: LoadOptions); into() replays and stores — streamed,
// events written as decoded, unless a serial log or a guest trace needs the whole trace
// (capture/README.md, "Streaming") — and hashes the file on a thread of its own, while
// the events stream (from construction when the trace is loaded whole).
class TraceImport {
public:
    explicit TraceImport(ImportRequest request);
    ~TraceImport();
    TraceImport(const TraceImport&) = delete;
    TraceImport& operator=(const TraceImport&) = delete;
    Imported into(storage::Store& store, Steps& steps);
    const std::string& name() const { return request_.name; }  // as requested

private:
    bool streamed() const;
    void start_hashing();
    std::string hashed();  // waits for the hash started by start_hashing()
    ImportRequest request_;
    std::string sha_;
    std::exception_ptr sha_error_;
    std::atomic<bool> hash_done_{false}, stop_hashing_{false};
    std::thread hasher_;
};

}  // namespace irqflow::pipeline
