#include "compare_views.hpp"

#include <optional>

#include "irqflow/replay/rates.hpp"

namespace irqflow::storage {
namespace {

using replay::RunCount;

// the scale is written as a decimal literal ("100.0"), so it must be whole
constexpr bool whole_scales() {
    for (const auto& r : replay::kRates)
        if (r.scale != static_cast<double>(static_cast<long long>(r.scale))) return false;
    return true;
}
static_assert(whole_scales(), "a rate's scale must be a whole number to be written in SQL");

// A literal in floating point: SQLite's 1.0 and 1e9 are, PostgreSQL's are numeric.
std::string real(const std::string& literal, SqlDialect d) { return d == SqlDialect::Postgres ? literal + "::float8" : literal; }

// The count as an expression over session_totals `t`, if it stores it.
std::optional<std::string> column(RunCount c, SqlDialect d) {
    switch (c) {
    case RunCount::GuestSeconds: return "t.guest_ns / " + real("1e9", d);
    case RunCount::Exits: return "t.exits";
    case RunCount::Injections: return "t.injections";
    case RunCount::Eois: return "t.eois";
    case RunCount::PvEois: return "t.pv_eois";
    case RunCount::EoiExits: return "(t.eois - t.pv_eois)";
    default: return std::nullopt;
    }
}

}  // namespace

std::string session_compare_views_ddl(SqlDialect d) {
    std::string rates, a, b, keys;
    for (const replay::Rate& r : replay::rates()) {
        const auto count = column(r.count, d), per = column(r.per, d);
        if (!count || !per) continue;
        const std::string key(r.key);
        rates += ",\n    " + real(std::to_string(static_cast<long long>(r.scale)) + ".0", d) + " * " + *count + " / nullif(" + *per + ", 0) AS " + key;
        a += " WHEN '" + key + "' THEN a." + key;
        b += " WHEN '" + key + "' THEN b." + key;
        keys += std::string(keys.empty() ? "SELECT '" + key + "' AS key" : " UNION ALL SELECT '" + key + "'");
    }
    // every ordered pair of sessions, a row per key (no significance: that needs each
    // run's time blocks, which `irqflow diff DB:A DB:B` reads)
    return "CREATE VIEW session_rates AS\n"
           "  SELECT s.id AS session, s.name,\n"
           "    " + *column(RunCount::GuestSeconds, d) + " AS guest_s, t.exits, t.injections, t.eois, t.pv_eois" + rates + "\n"
           "  FROM sessions s JOIN session_totals t ON t.session = s.id\n"
           "  WHERE t.exits > 0 AND t.interrupts > 0;\n"
           "CREATE VIEW session_diffs AS\n"
           "  SELECT a_session, b_session, key, a, b, " + real("100.0", d) + " * (b - a) / nullif(abs(a), 0) AS change_percent FROM (\n"
           "    SELECT a.session AS a_session, b.session AS b_session, keys.key,\n"
           "      CASE keys.key" + a + " END AS a,\n"
           "      CASE keys.key" + b + " END AS b\n"
           "    FROM session_rates a JOIN session_rates b ON a.session != b.session\n"
           "    CROSS JOIN (" + keys + ") keys) d;\n";
}

}  // namespace irqflow::storage
