// The replay's statistics, declared once: key, type, where it is shown and what it
// means. `check --json` writes the kCheck ones in this order under these keys, the
// importer stores the kDatabase ones in the `stats` table, the GUI's statistics tab
// lists the kGui ones; nobody keeps a key list of their own.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

enum class StatType {
    Count,     // a whole number
    Ratio,     // a fraction in [0, 1]
    Text,      // a word (the PV EOI semantics)
    Counts,    // name → count (EOIs by path, exits by reason)
    Latencies  // vector → latency percentiles
};

// Where a statistic appears.
enum StatOutput : unsigned { kCheck = 1, kDatabase = 2, kGui = 4 };

struct Statistic {
    // A '.' nests it in JSON ("exits_saved.pv_eoi" is `"exits_saved":{"pv_eoi":…}`) and
    // becomes '_' in the database; Counts are stored one row per name as key_<name>.
    std::string_view key;
    StatType type;
    unsigned outputs;
    std::string_view meaning;  // one line, for people (GUI, storage/SCHEMA.md)
};
std::span<const Statistic> statistics();

using StatValue = std::variant<std::uint64_t, double, std::string_view, const std::map<std::string, std::uint64_t>*,
                               const std::map<int, Latency>*>;
// The value of statistics()[index] in a result.
StatValue stat_value(const ReplayResult& r, std::size_t index);
// The key as the database stores it ('.' → '_').
std::string stat_db_key(const Statistic& s);

}  // namespace irqflow::replay
