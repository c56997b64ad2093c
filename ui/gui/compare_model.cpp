#include "compare_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/storage/database.hpp"

namespace irqflow::gui {
namespace {

// What is inside the brackets of a key ("exits_per_guest_s[EXIT_HLT]" → "EXIT_HLT").
std::string argument(const std::string& key) {
    const auto open = key.find('['), close = key.rfind(']');
    return open == std::string::npos || close == std::string::npos || close < open ? std::string() : key.substr(open + 1, close - open - 1);
}

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The first time at or after `from` something matches, else the first of all, else -1.
std::int64_t first_from(const std::vector<std::int64_t>& times, std::int64_t from) {
    if (times.empty()) return -1;
    const auto it = std::lower_bound(times.begin(), times.end(), from);
    return it != times.end() ? *it : times.front();
}

// Times (sorted) of what `key` counts in one session.
std::vector<std::int64_t> instances(const ui::DiffRow& row, const Session& s) {
    const std::string& key = row.key;
    const std::string arg = argument(key);
    std::vector<std::int64_t> out;
    const auto& ev = s.trace.events;
    auto events = [&](EventKind kind, const std::function<bool(const Event&)>& keep) {
        for (std::size_t i = 0; i < ev.size(); ++i)
            if (ev.kind(i) == kind) {
                const Event e = ev[i];
                if (keep(e)) out.push_back(e.ts.value());
            }
    };
    const int vector = arg.empty() ? -1 : static_cast<int>(std::strtol(arg.c_str(), nullptr, 16));
    if (starts(key, "exits_per_guest_s[") || starts(key, "host_ns_per_exit[")) {
        events(EventKind::Exit, [&](const Event& e) { return exit_reason_key(e) == arg; });
    } else if (key == "exits_per_guest_s" || key == "exits_per_interrupt") {
        events(EventKind::Exit, [](const Event&) { return true; });
    } else if (starts(key, "injections_per_guest_s")) {
        for (const auto& ir : s.replay.interrupts)
            if (ir.inject_ts && (arg.empty() || ir.vector == vector)) out.push_back(ir.inject_ts);
    } else if (starts(key, "eois_per_interrupt[") || key == "eoi_exits_per_interrupt" || key == "pv_eoi_hit_rate") {
        for (const auto& ir : s.replay.interrupts) {
            if (!ir.eoi_ts || !ir.eoi_path) continue;
            const bool pv = *ir.eoi_path == replay::EoiPath::PvEoi;
            if (starts(key, "eois_per_interrupt[") ? replay::to_string(*ir.eoi_path) == arg : key == "pv_eoi_hit_rate" ? pv : !pv)
                out.push_back(ir.eoi_ts);
        }
    } else if (key == "ipis_per_guest_s" || key == "ipi_fanout") {
        for (const auto& ipi : s.replay.ipis) out.push_back(ipi.ts);
    } else if (starts(key, "findings[")) {
        for (const auto& f : s.replay.findings)
            if (replay::rule_info(f.rule).id == arg) out.push_back(f.ts.value());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A latency row: the injection (of the row's vector) whose latency is nearest `value`.
std::int64_t nearest_latency(const ui::DiffRow& row, const Session& s, double value) {
    const bool to_inject = row.key.find("accept_to_inject") != std::string::npos;
    const int vector = static_cast<int>(std::strtol(argument(row.key).c_str(), nullptr, 16));
    std::int64_t best = -1;
    double best_gap = 0;
    for (const auto& ir : s.replay.interrupts) {
        if (ir.vector != vector || !ir.inject_ts) continue;
        std::int64_t ns = -1;
        if (to_inject && ir.accept_ts && ir.inject_ts >= ir.accept_ts) ns = ir.inject_ts - ir.accept_ts;
        if (!to_inject && ir.eoi_ts && ir.eoi_ts >= ir.inject_ts) ns = ir.eoi_ts - ir.inject_ts;
        if (ns < 0) continue;
        const double gap = std::abs(static_cast<double>(ns) - value);
        if (best < 0 || gap < best_gap) best = ir.inject_ts, best_gap = gap;
    }
    return best;
}

}  // namespace

SessionSource source_of(const std::string& given) {
    SessionSource src;
    src.path = given;
    if (const auto stored = storage::stored_session_name(given)) {
        src.path = stored->db;
        src.db_session = stored->session;
    }
    return src;
}

std::vector<ui::DiffRow> diff_rows(const Session& a, const Session& b) {
    return ui::compare(ui::digest(a.title, a.trace, a.replay), ui::digest(b.title, b.trace, b.replay));
}

Example example_of(const ui::DiffRow& row, const Session& a, const Session& b, std::int64_t a_from, std::int64_t b_from) {
    if (row.key.find("_to_") != std::string::npos && row.unit == "ns") return {nearest_latency(row, a, row.a), nearest_latency(row, b, row.b)};
    return {first_from(instances(row, a), a_from), first_from(instances(row, b), b_from)};
}

}  // namespace irqflow::gui
