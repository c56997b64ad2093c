// What the window shows, loaded once from a trace file or from a session stored in an
// irqflow SQLite database: the trace, its serial lines, the replay, the timeline and
// the inspector's checkpoints. No ImGui here.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"
#include "inspector_model.hpp"
#include "overview_model.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

struct SessionSource {
    std::string path;        // trace.dat / report text, or an irqflow database
    std::string db_session;  // id or name in the database ("" = its only session)
    std::string serial;      // serial log for a trace file
    std::string guest;       // the guest's own trace of the same run, for a trace file
    bool headers_checked = false;  // check_trace_headers ran on the main thread (see LoadOptions)
};

// Held by pointer: the state index refers to the trace, so a session never moves.
struct Session {
    std::string title;  // what the window calls it
    Trace trace;
    std::optional<SerialLog> serial;
    std::optional<GuestTrace> guest;  // on the host's clock
    VmId guest_vm = kUnknownVm;
    replay::ReplayResult replay;
    Timeline tl;
    std::unique_ptr<StateIndex> index;
};

// Loading stages, for a progress screen while a loader thread works.
inline constexpr const char* kLoadStages[] = {"reading (first pass)", "reading the events", "aligning the serial log and the guest's trace", "replaying",
                                              "building the timeline", "indexing APIC states", "ready"};
inline constexpr int kLoadDone = 6;
struct LoadProgress {
    std::atomic<int> stage{0};
    std::atomic<float> fraction{0};  // of the current stage, when known
    OverviewBuilder overview;        // a trace file's overview, as the first pass reads it
    // --screenshot-overview: the loader waits after the first pass until `resume`, so
    // the picture is of the overview however fast the rest would load.
    std::atomic<bool> hold_after_overview{false}, resume{false};
};

// SQLite's file header, to tell a database from a trace by content, not by name.
bool is_database(const std::string& path);

// The sessions an irqflow database holds (throws StorageError), for a picker when the
// command line names none and there are several.
struct StoredSessionEntry {
    std::string id, name, source;
    std::int64_t events = 0, findings = 0;
};
std::vector<StoredSessionEntry> list_sessions(const std::string& db);

// Throws InputError / StorageError with the file (and position) named.
std::unique_ptr<Session> load_session(const SessionSource& src, LoadProgress& progress);

}  // namespace irqflow::gui
