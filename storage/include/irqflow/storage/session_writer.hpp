// Writes one session as its events arrive (a TraceStream, or a loaded trace's events),
// in one transaction of either backend: the session appears whole or not at all
// (storage/SCHEMA.md). Memory stays bounded by vCPUs and kinds, not events.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "irqflow/storage/store.hpp"

namespace irqflow::storage {

class SessionWriter {
public:
    // Begins the store's transaction and refuses a source already stored (by sha256); the
    // session is named `name`, or (NameClash::Suffix) `name-2`, `name-3`… when that is taken.
    // `sha256` empty: the source is still being hashed; source_hashed() gives it later.
    SessionWriter(Store& db, const std::string& name, const SessionMeta& meta, const std::string& sha256,
                  std::function<void(const ImportProgress&)> progress = {}, std::uint64_t expected_events = 0,
                  NameClash clash = NameClash::Suffix);
    ~SessionWriter();  // rolls back unless finish() committed
    SessionWriter(const SessionWriter&) = delete;
    SessionWriter& operator=(const SessionWriter&) = delete;

    // The source's sha256 when the constructor had none, before finish(): throws
    // StorageError at once if a session already holds it (the transaction is rolled
    // back when this writer is destroyed).
    void source_hashed(const std::string& sha256);
    // Every event in trace order, lost-event markers included.
    void add(const Event& e);
    // `trace` supplies names, VMs and vCPUs (its events are not read). Commits.
    std::int64_t finish(const Trace& trace, const replay::ReplayResult& replay, const SerialLog* serial, const GuestSide* guest = nullptr);
    std::int64_t session_id() const;
    const std::string& session_name() const;  // as stored
    std::uint64_t records() const;  // events added so far, lost-event markers not counted

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace irqflow::storage
