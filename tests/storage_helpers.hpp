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

// A sample imported as `import` would, with its serial log when asked.
inline std::int64_t import_sample(storage::Store& d, const std::string& name, bool serial = false) {
    Trace t = load_trace(sample(name));
    std::optional<SerialLog> log;
    if (serial) {
        log = read_serial_log(sample(name.substr(0, name.size() - 4) + "-serial.log"));
        align_serial(t, *log);
    }
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(t, o);
    return d.import_session(name, t, storage::sha256(read_file(sample(name))), r, log ? &*log : nullptr);
}

// A scratch path with no database (nor its -wal/-shm) at it.
inline std::filesystem::path fresh_db(const std::string& name) {
    auto p = scratch(name);
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + ext);
    return p;
}

}  // namespace irqflow::test
