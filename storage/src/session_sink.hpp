// What a SessionWriter needs from a backend (storage/README.md, "Backends"): a place
// for event rows as they arrive, a place for the tables derived at the end, and one
// transaction around both. The writing logic — which rows, in which order, with which
// values — is the backend-neutral SessionWriter's (session_writer.cpp, session_rows.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/event.hpp"
#include "irqflow/storage/store.hpp"

namespace irqflow::storage {

// An event row; kvm_exit rows carry their guest and host time.
struct Row {
    Event e;
    std::optional<std::int64_t> guest_ns, host_ns;
};

// Event rows in record order. A kvm_exit's host time is known only at its vCPU's next
// entry: ExitTimes (exit_times.hpp) holds exits back until then, and writes one early
// (insert_early_exit) only when its vCPU stays out of the guest very long.
class EventRowSink {
public:
    virtual ~EventRowSink() = default;
    virtual void insert(Row r) = 0;  // into r.e.kind's table (a Lost marker: a gaps row)
    virtual void insert_early_exit(Row r) = 0;
    // The host time of that vCPU's exit written early (at most one is open per vCPU).
    virtual void set_host_time(VmId vm, VcpuId vcpu, std::int64_t host_ns) = 0;
};

// One row's values, column by column in the order the columns were named.
class Values {
public:
    Values& add(std::int64_t v) {
        put_int(v);
        return *this;
    }
    Values& add(int v) { return add(static_cast<std::int64_t>(v)); }
    Values& add(std::uint32_t v) { return add(static_cast<std::int64_t>(v)); }
    Values& add(std::uint64_t v) { return add(static_cast<std::int64_t>(v)); }
    Values& add(double v) {
        put_real(v);
        return *this;
    }
    Values& add(std::string_view v) {
        put_text(v);
        return *this;
    }
    Values& add(std::optional<std::int64_t> v) {
        if (v) return add(*v);
        put_null();
        return *this;
    }
    Values& null() {
        put_null();
        return *this;
    }

protected:
    ~Values() = default;
    virtual void put_int(std::int64_t v) = 0;
    virtual void put_real(double v) = 0;
    virtual void put_text(std::string_view v) = 0;
    virtual void put_null() = 0;
};

// Rows of the tables other than the events'.
class TableSink {
public:
    enum class OnConflict { Fail, Ignore };  // Ignore: a row whose key is there already is skipped
    virtual ~TableSink() = default;
    // Rows 0..n-1 of `table`; fill(values, i) adds row i's values.
    virtual void rows(std::string_view table, const std::vector<std::string_view>& columns, std::size_t n,
                      const std::function<void(Values&, std::size_t)>& fill, OnConflict on_conflict = OnConflict::Fail) = 0;
};

// The source's sha256 when a session begins before it is known (an import hashes the
// file while its events stream: storage/README.md, "Import"). The sessions row holds a
// stand-in value until then — unique, so that concurrent imports never collide on it — and
// the sources stored before this session began are kept to refuse a duplicate at once,
// while the connection is busy with the events.
class SessionSource {
public:
    // `sha256`: the source's, or empty if it comes later (given()).
    explicit SessionSource(std::string sha256);
    // What the sessions row holds meanwhile.
    const std::string& row_value() const { return sha256_.empty() ? stand_in_ : sha256_; }
    bool known() const { return !sha256_.empty(); }
    const std::string& sha256() const { return sha256_; }
    // The sessions stored when this one began (backend's read), by source.
    void stored(std::int64_t id, std::string name, std::string sha256) { stored_[std::move(sha256)] = {id, std::move(name)}; }
    // The source's sha256: refused (StorageError, `where` first) if a session holds it.
    void given(const std::string& where, const std::string& sha256);

private:
    std::string sha256_, stand_in_;
    std::map<std::string, std::pair<std::int64_t, std::string>> stored_;
};

// A source stored already, refused in the words both backends use.
StorageError duplicate_source(const std::string& where, const std::string& sha256, std::int64_t id, const std::string& name);

// One session's transaction in a backend. Begun by Store::begin_session (the sessions
// row is in, the source checked for duplicates if it was given); destroyed without
// commit(), it rolls back and leaves nothing.
class SessionSink {
public:
    virtual ~SessionSink() = default;
    // The source's sha256 when begin_session had none; before commit(). Throws
    // StorageError for a source a session already holds.
    virtual void source(const std::string& sha256) = 0;
    virtual std::int64_t id() const = 0;
    virtual const std::string& name() const = 0;  // as stored
    virtual EventRowSink& events() = 0;
    // Every event row has been given: write what is still held.
    virtual void end_events() = 0;
    virtual TableSink& tables() = 0;
    // The sessions row's last columns (the source's sha256 among them), then COMMIT.
    virtual void commit(std::int64_t first_ts, std::int64_t last_ts, std::uint64_t records, std::string_view semantics) = 0;
};

}  // namespace irqflow::storage
