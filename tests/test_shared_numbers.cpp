// One number, one value everywhere: what `check --json` reports, the GUI's statistics
// tab and exit table show and the database stores, on every sample (and the GUI on a
// stored session shows what it shows on the trace file).
#include <catch2/catch.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "irqflow/replay/statistics.hpp"
#include "session.hpp"
#include "statistics_model.hpp"

using namespace irqflow;
using namespace irqflow::test;
using json = nlohmann::json;

namespace {

// The summary value under a statistics key ("exits_saved.pv_eoi" nests).
const json& summary_value(const json& check, std::string_view key) {
    const json* v = &check.at("summary");
    for (std::size_t pos = 0;;) {
        const auto dot = key.find('.', pos);
        v = &v->at(std::string(key.substr(pos, dot - pos)));
        if (dot == std::string_view::npos) return *v;
        pos = dot + 1;
    }
}

// The GUI's text for a JSON value of a statistic, as statistics_rows writes it.
std::string gui_text(const json& v, replay::StatType type) {
    char b[64];
    switch (type) {
    case replay::StatType::Count: return std::to_string(v.get<std::uint64_t>());
    case replay::StatType::Ratio: std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v.get<double>()); return b;
    case replay::StatType::Text: return v.get<std::string>();
    case replay::StatType::Counts: {
        std::string out;
        for (const auto& [k, n] : v.items()) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(n.get<std::uint64_t>());
        return out.empty() ? "-" : out;
    }
    case replay::StatType::Latencies: break;
    }
    return "?";
}

std::unique_ptr<gui::Session> open(const std::string& path, const std::string& session = "") {
    gui::LoadProgress p;
    gui::SessionSource src;
    src.path = path;
    src.db_session = session;
    return gui::load_session(src, p);
}

}  // namespace

TEST_CASE("the GUI and the database show the numbers check --json reports", "[gui][storage][replay]") {
    const auto db = scratch("shared-numbers.db");
    std::filesystem::remove(db);
    for (const auto& name : dat_samples()) {
        INFO(name);
        const auto r = run(cli() + " check --json '" + sample(name) + "'");
        REQUIRE(r.status == 0);
        const json check = json::parse(r.out);
        // the GUI's statistics tab: every row it shows that check --json has
        const auto session = open(sample(name));
        const auto rows = gui::statistics_rows(session->replay);
        const auto list = replay::statistics();
        std::size_t compared = 0;
        for (const auto& row : rows) {
            INFO(row.key);
            const auto it = std::find_if(list.begin(), list.end(), [&](const replay::Statistic& s) { return s.key == row.key; });
            REQUIRE(it != list.end());
            if (!(it->outputs & replay::kCheck)) continue;
            CHECK(row.value == gui_text(summary_value(check, row.key), it->type));
            ++compared;
        }
        CHECK(compared >= 20);
        // the exit table: per reason, the lanes add up to check's count
        const auto& by_reason = summary_value(check, "exits_by_reason");
        std::map<std::string, std::uint64_t> lanes;
        for (const auto& lane : session->tl.lanes)
            for (const auto& [reason, n] : lane.exits_by_reason) lanes[reason] += n;
        CHECK(lanes.size() == by_reason.size());
        for (const auto& [reason, n] : by_reason.items()) CHECK(lanes[reason] == n.get<std::uint64_t>());
        // the database: every stored statistic check --json also reports
        REQUIRE(run(cli() + " import '" + sample(name) + "' --db '" + db.string() + "' --name '" + name + "'").status == 0);
        const auto q = run(cli() + " query --db '" + db.string() + "' --json \"SELECT key, value FROM stats JOIN sessions s ON s.id = session WHERE s.name = '" +
                           name + "'\"");
        REQUIRE(q.status == 0);
        std::map<std::string, double> stored;
        for (const auto& line : json::parse(q.out)) {
            const auto& v = line.at("value");  // query --json prints every value as text for now
            stored[line.at("key").get<std::string>()] = v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>();
        }
        compared = 0;
        for (const auto& s : list) {
            if (!(s.outputs & replay::kDatabase) || !(s.outputs & replay::kCheck)) continue;
            INFO(s.key);
            const auto& v = summary_value(check, s.key);
            if (s.type == replay::StatType::Counts) {
                for (const auto& [k, n] : v.items()) CHECK(stored.at(replay::stat_db_key(s) + "_" + k) == n.get<double>());
            } else {
                CHECK(stored.at(replay::stat_db_key(s)) == Approx(v.get<double>()));
            }
            ++compared;
        }
        CHECK(compared >= 20);
        // and the GUI on the stored session shows the same rows
        const auto stored_session = open(db.string(), name);
        const auto rows_db = gui::statistics_rows(stored_session->replay);
        REQUIRE(rows_db.size() == rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) CHECK(rows_db[i].value == rows[i].value);
    }
}
