// Helpers of the storage tests, for either backend (a Database is a Store).
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/sha256.hpp"
#include "irqflow/storage/store.hpp"

namespace irqflow::test {

// The one cell a query must return ("NULL" for NULL).
inline std::string one(storage::Store& d, const std::string& sql) {
    auto r = d.query(sql);
    REQUIRE(r.rows.size() == 1);
    return r.rows[0][0].value_or("NULL");
}

// A trace file imported as `import` would, under `name`, with a serial log when given.
inline std::int64_t import_trace_file(storage::Store& d, const std::string& name, const std::string& path, const std::string& serial_log = "") {
    Trace t = load_trace(path);
    std::optional<SerialLog> log;
    if (!serial_log.empty()) {
        log = read_serial_log(serial_log);
        align_serial(t, *log);
    }
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(t, o);
    return d.import_session(name, t, storage::sha256(read_file(path)), r, log ? &*log : nullptr);
}

// A sample imported as `import` would, with its serial log when asked.
inline std::int64_t import_sample(storage::Store& d, const std::string& name, bool serial = false) {
    return import_trace_file(d, name, sample(name), serial ? sample(name.substr(0, name.size() - 4) + "-serial.log") : "");
}

// A scratch path with no database (nor its -wal/-shm) at it.
inline std::filesystem::path fresh_db(const std::string& name) {
    auto p = scratch(name);
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + ext);
    return p;
}

}  // namespace irqflow::test
