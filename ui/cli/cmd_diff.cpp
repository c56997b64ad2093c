// irqflow diff A B: two runs side by side, normalized, each row with a significance test
// (ui/README.md, "Comparing two runs"); --fail-on gates for CI.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "args.hpp"
#include "compare.hpp"
#include "gate.hpp"
#include "irqflow/storage/database.hpp"
#include "json.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {
namespace {

// A run named on the command line: a trace file, or DB:SESSION (a stored session, replayed
// with the semantics it was imported with).
RunDigest load_run(const std::string& given) {
    if (const auto name = storage::stored_session_name(given)) {
        const auto db = storage::open_store(name->db, storage::Store::Mode::ReadOnly);
        const auto run = pipeline::replay_stored(*db, name->session);
        return digest(given, run.stored.trace, run.result);
    }
    if (storage::is_database_file(given) || storage::is_postgres_uri(given))
        throw UsageError(given + " is a database: name the session as " + given + ":SESSION (irqflow sessions --db " + given + " lists them)");
    replay::ReplayOptions ro;
    ro.collect_details = true;
    const std::string path = readable_trace(given);
    const auto run = pipeline::check({path, {}, {}}, ro, pipeline::Hold::Whole);
    return digest(shown_name(path), run.trace, run.result);
}

// The rows of one section, under its title; nothing when none is picked.
template <class Pick>
void section(const std::vector<DiffRow>& rows, std::size_t width, const char* title, Pick pick) {
    bool any = false;
    for (const auto& r : rows) {
        if (!pick(r)) continue;
        if (!any) std::printf("\n%-*s %14s %14s %10s  %s\n", static_cast<int>(width), title, "A", "B", "change", "significant");
        any = true;
        std::printf("%-*s %14s %14s %10s  %s\n", static_cast<int>(width), r.label.c_str(), value_text(r, r.a).c_str(),
                    value_text(r, r.b).c_str(), change_text(r).c_str(), verdict_text(r));
    }
}

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// By default the headline, the largest significant changes outside it and one line for
// rows that do not compare; --full every row by section.
void print_text(const RunDigest& a, const RunDigest& b, const std::vector<DiffRow>& rows, bool full) {
    std::printf("A: %s (%.3f s, %.3f s in the guest)\nB: %s (%.3f s, %.3f s in the guest)\n", a.name.c_str(),
                static_cast<double>(a.t1 - a.t0) / 1e9, a.total.guest_s, b.name.c_str(), static_cast<double>(b.t1 - b.t0) / 1e9,
                b.total.guest_s);
    // the label column as wide as the longest label printed
    std::vector<const DiffRow*> other;  // short form: the significant rows outside the headline, largest first
    for (const auto& r : rows)
        if (!r.headline && r.test.significant) other.push_back(&r);
    std::stable_sort(other.begin(), other.end(),
                     [](const DiffRow* x, const DiffRow* y) { return std::abs(x->test.statistic) > std::abs(y->test.statistic); });
    constexpr std::size_t kShown = 10;
    const std::size_t more = other.size() > kShown ? other.size() - kShown : 0;
    other.resize(std::min(other.size(), kShown));
    std::size_t width = 10;
    for (const auto& r : rows)
        if (full || r.headline) width = std::max(width, r.label.size());
    for (const DiffRow* r : other) width = std::max(width, r->label.size());
    section(rows, width, "headline", [](const DiffRow& r) { return r.headline; });
    if (full) {
        section(rows, width, "exits by reason (per s in the guest)", [](const DiffRow& r) { return starts(r.key, "exits_per_guest_s["); });
        section(rows, width, "time in the host per exit (µs)", [](const DiffRow& r) { return starts(r.key, "host_us_per_exit["); });
        section(rows, width, "injections by vector (per s in the guest)", [](const DiffRow& r) { return starts(r.key, "injections_per_guest_s["); });
        section(rows, width, "EOIs by path (per injected interrupt)", [](const DiffRow& r) { return starts(r.key, "eois_per_interrupt["); });
        section(rows, width, "IPIs", [](const DiffRow& r) { return r.key == "ipi_fanout"; });
        section(rows, width, "per vCPU", [](const DiffRow& r) { return starts(r.key, "vcpu") || starts(r.key, "vm"); });
        section(rows, width, "exits the PV and Hyper-V features saved and would save", [](const DiffRow& r) {
            return (starts(r.key, "pv_") || starts(r.key, "hv_")) && r.key.find("_exits_") != std::string::npos;
        });
        section(rows, width, "latency by vector (µs)", [](const DiffRow& r) { return r.unit == "µs" && r.key.find("_to_") != std::string::npos; });
    } else {
        char title[96];
        std::snprintf(title, sizeof title, more ? "significant outside the headline (the %zu largest)" : "significant outside the headline",
                      other.size());
        section(rows, width, title, [&other](const DiffRow& r) { return std::find(other.begin(), other.end(), &r) != other.end(); });
        std::string vectors;  // the vectors whose inject -> EOI rows do not compare
        for (const auto& r : rows)
            if (!r.not_comparable.empty() && starts(r.key, "p50.inject_to_eoi[")) {
                char v[8];
                std::snprintf(v, sizeof v, "0x%02x", r.vector);
                vectors += (vectors.empty() ? "" : ", ") + std::string(v);
            }
        if (!vectors.empty())
            std::printf("\ninject -> EOI of %s: not comparable, the EOI was observed at different points (PV EOI on one side only)\n",
                        vectors.c_str());
    }
    const PvEoiSide pa = pv_eoi_side(a), pb = pv_eoi_side(b);
    std::printf("\nPV EOI: A %llu of %llu EOIs without an exit (%.1f %%), predicted %.1f %% (%llu more exits saved); "
                "B %llu of %llu (%.1f %%), predicted %.1f %%\n",
                static_cast<unsigned long long>(pa.pv_eois), static_cast<unsigned long long>(pa.eois), 100 * pa.measured_hit_rate(),
                100 * pa.predicted_hit_rate(), static_cast<unsigned long long>(pa.predicted_saved), static_cast<unsigned long long>(pb.pv_eois),
                static_cast<unsigned long long>(pb.eois), 100 * pb.measured_hit_rate(), 100 * pb.predicted_hit_rate());
    std::size_t significant = 0, headline = 0;
    for (const auto& r : rows) {
        significant += r.test.significant;
        headline += r.test.significant && r.headline;
    }
    std::printf("\n%zu significant changes (%zu in the headline) at a two-sided 1 %% level: rates by Welch's t over 10 equal time "
                "blocks of each run, latency percentiles by a block bootstrap (400 resamples, fixed seed), host time per exit by Welch's t over the blocks' means, findings exactly.\n",
                significant, headline);
    if (!full) std::printf("%zu rows in all: --full prints every one, --json lists them with their keys.\n", rows.size());
}

Json row_json(const DiffRow& r) {
    Json j;
    j["key"] = r.key;
    j["label"] = r.label;
    j["unit"] = r.unit;
    j["headline"] = r.headline;
    j["a"] = r.a;
    j["b"] = r.b;
    j["change"] = r.change();
    if (const auto q = r.ratio()) j["ratio"] = *q;
    else j["ratio"] = nullptr;
    if (!r.not_comparable.empty()) j["not_comparable"] = r.not_comparable;
    else j["not_comparable"] = nullptr;
    if (r.test.test[0]) {
        j["test"] = r.test.test;
        j["statistic"] = std::isfinite(r.test.statistic) ? Json(r.test.statistic) : Json(nullptr);
        j["significant"] = r.test.significant;
    } else {
        j["test"] = nullptr;
        j["significant"] = nullptr;
    }
    return j;
}

int run(const std::string& a_name, const std::string& b_name, bool json, bool full, const std::vector<std::string>& gate_texts,
        const std::string& vcpu_map) {
    std::vector<Gate> gates;
    for (std::size_t i = 0; i < gate_texts.size(); ++i) {
        std::string error;
        auto g = parse_gate(gate_texts[i], error);
        if (!g) throw UsageError("--fail-on '" + gate_texts[i] + "': " + error);
        gates.push_back(std::move(*g));
    }
    const RunDigest a = load_run(a_name), b = load_run(b_name);
    std::optional<VcpuMap> pairs;
    if (!vcpu_map.empty()) {
        std::string error;
        pairs = parse_vcpu_map(vcpu_map, a, b, error);
        if (!pairs) throw UsageError("--vcpu-map '" + vcpu_map + "': " + error);
    }
    const auto rows = compare(a, b, pairs ? &*pairs : nullptr);
    std::vector<GateResult> results;
    for (const auto& g : gates) {
        results.push_back(evaluate(g, rows));
        if (!results.back().row) {
            const bool renamed = starts(g.key, "host_ns_per_exit[");
            throw UsageError("--fail-on '" + g.text + "': no row '" + g.key + "' in these runs (" +
                             (renamed ? "host time per exit is host_us_per_exit[REASON], in µs" : "`irqflow diff A B --json` lists every key") + ")");
        }
        if (!results.back().row->not_comparable.empty())
            throw UsageError("--fail-on '" + g.text + "': row '" + g.key + "' cannot be a gate: not comparable (" +
                             results.back().row->not_comparable + ")");
    }
    bool tripped = false;
    if (json) {
        Json j;
        j["a"] = a.name;
        j["b"] = b.name;
        Json rj = Json::array();
        for (const auto& r : rows) rj.push_back(row_json(r));
        j["rows"] = std::move(rj);
        const PvEoiSide pa = pv_eoi_side(a), pb = pv_eoi_side(b);
        for (const auto& [side, p] : {std::pair{"a", &pa}, {"b", &pb}})
            j["pv_eoi"][side] = {{"eois", p->eois}, {"pv_eois", p->pv_eois}, {"measured_hit_rate", p->measured_hit_rate()},
                                 {"predicted_exits_saved", p->predicted_saved}, {"predicted_hit_rate", p->predicted_hit_rate()}};
        Json gj = Json::array();
        for (std::size_t i = 0; i < gates.size(); ++i) {
            gj.push_back({{"gate", gates[i].text}, {"change", std::isfinite(results[i].change) ? Json(results[i].change) : Json(nullptr)},
                          {"beyond_bound", results[i].beyond}, {"tripped", results[i].tripped}});
            tripped = tripped || results[i].tripped;
        }
        j["gates"] = std::move(gj);
        std::cout << json_text(j) << '\n';
    } else {
        print_text(a, b, rows, full);
        for (std::size_t i = 0; i < gates.size(); ++i) {
            const auto& r = results[i];
            std::printf("gate '%s': change %+.2f%s%s\n", gates[i].text.c_str(), r.change, gates[i].percent ? "%" : "",
                        r.tripped ? ": TRIPPED" : r.beyond ? ": beyond the bound but within noise, not tripped" : ": holds");
            tripped = tripped || r.tripped;
        }
    }
    return tripped ? 1 : kExitOk;
}

}  // namespace

void add_diff(CLI::App& app, Commands& out) {
    struct Options {
        std::string a, b;
        bool json = false, full = false;
        std::vector<std::string> gates;
        std::string vcpu_map;
    };
    auto o = std::make_shared<Options>();
    auto* c = app.add_subcommand("diff",
                                 "two runs side by side: exits, EOIs, injections, IPIs, latencies and findings, normalized per "
                                 "second in the guest or per interrupt, each change tested against noise");
    c->add_option("A", o->a, "the run to compare from: a capture, or DB:SESSION (a stored session)")->required();
    c->add_option("B", o->b, "the run to compare to")->required();
    c->add_flag("--full", o->full, "every row by section (exits by reason, host time per exit, vectors, EOI paths, per vCPU, latencies), "
                "not just the headline and the largest significant changes");
    c->add_flag("--json", o->json, "one JSON document: every row with its key (what --fail-on names), values, test and verdict");
    c->add_option("--fail-on", o->gates,
                  "exit 1 when this gate trips: KEY OP NUMBER[%], OP one of > >= < <=, % for a relative change (A to B); "
                  "only a significant change trips it; a row marked not comparable cannot be one (repeatable)")
        ->type_name("GATE");
    c->add_option("--vcpu-map", o->vcpu_map,
                  "which vCPU of A to compare with which of B in the per-vCPU rows, when the numbering differs: A=B pairs, "
                  "comma-separated, each N, vcpuN or vmM/vcpuN (default: the same ids on both sides)")
        ->type_name("MAP");
    c->footer(examples({"irqflow diff samples/pveoi-off.dat samples/pveoi-on.dat",
                        "irqflow diff base.dat new.dat --fail-on 'exits_per_interrupt > +5%' --fail-on 'p99.inject_to_eoi[0xec] > +20%'",
                        "irqflow diff s.db:base s.db:patched --json | jq '.rows[] | select(.significant)'",
                        "irqflow diff samples/instance.dat samples/pveoi-on.dat --vcpu-map vcpu0=vcpu1,vcpu1=vcpu0"}) +
              "\nExit: 0, 1 a gate tripped, 2 bad input, 64 usage error (a bad gate, a key no row has or a row not comparable, a bad --vcpu-map).");
    out.emplace_back(c, [o] { return run(o->a, o->b, o->json, o->full, o->gates, o->vcpu_map); });
}

}  // namespace irqflow::cli
