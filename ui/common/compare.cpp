#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "irqflow/capture/exit_reasons.hpp"
#include "percentile.hpp"

namespace irqflow::ui {
namespace {

using Block = RunDigest::Block;

// The block a time falls in, and how to spread an interval over blocks.
struct Blocks {
    std::int64_t t0, t1;
    std::size_t of(std::int64_t ts) const {
        if (ts <= t0 || t1 <= t0) return 0;
        const auto i = static_cast<std::size_t>(static_cast<double>(ts - t0) / static_cast<double>(t1 - t0) * RunDigest::kBlocks);
        return std::min(i, RunDigest::kBlocks - 1);
    }
    std::int64_t start(std::size_t i) const { return t0 + static_cast<std::int64_t>(static_cast<double>(t1 - t0) * static_cast<double>(i) / RunDigest::kBlocks); }
};

std::string hex(int v) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

template <class K>
std::uint64_t get(const std::map<K, std::uint64_t>& m, const K& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

// One side of a rate: its time blocks and their sum (a whole run, or one vCPU of it).
struct Side {
    const std::array<Block, RunDigest::kBlocks>& blocks;
    const Block& total;
    Side(const RunDigest& d) : blocks(d.blocks), total(d.total) {}  // NOLINT: a run is a side
    Side(const RunDigest::PerVcpu& v) : blocks(v.blocks), total(v.total) {}  // NOLINT
};

using replay::RunCount;

// A run's count in one time block (or its total, a Block too); 0 for the counts kept
// for the whole run only (run_total).
double block_count(const Block& x, RunCount c) {
    switch (c) {
    case RunCount::GuestSeconds: return x.guest_s;
    case RunCount::Exits: return static_cast<double>(x.exits);
    case RunCount::Injections: return static_cast<double>(x.injections);
    case RunCount::Eois: return static_cast<double>(x.eois);
    case RunCount::PvEois: return static_cast<double>(x.pv_eois);
    case RunCount::EoiExits: return static_cast<double>(x.eois - x.pv_eois);
    case RunCount::Ipis: return static_cast<double>(x.ipis);
    case RunCount::IpiDestinations: return static_cast<double>(x.ipi_targets);
    default: return 0;
    }
}

double run_total(const RunDigest& d, RunCount c) {
    switch (c) {
    case RunCount::PvEoiSaved: return static_cast<double>(d.pv_eois);
    case RunCount::PvEoiPredicted: return static_cast<double>(d.predicted_pv_eoi_saved);
    case RunCount::PvIpiSaved: return static_cast<double>(d.pv_ipi_saved);
    case RunCount::PvIpiPredicted: return static_cast<double>(d.predicted_pv_ipi_saved);
    case RunCount::HvEoiAssistSaved: return static_cast<double>(d.hv_eoi_assist_saved);
    case RunCount::HvIpiSaved: return static_cast<double>(d.hv_ipi_saved);
    default: return block_count(d.total, c);
    }
}

// What a row is, before its values: key, label, unit, headline, what it counts.
DiffRow row_of(std::string key, std::string label, std::string_view unit, bool headline, RunCount counts, std::string of = {}, int vector = -1) {
    DiffRow row{std::move(key), std::move(label), std::string(unit), headline};
    row.counts = counts;
    row.of = std::move(of);
    row.vector = vector;
    return row;
}

// A count per unit of something both runs have per block (guest seconds, injections):
// the total ratio as the value, Welch's t over the per-block ratios as the test.
DiffRow rate_row(DiffRow row, Side a, Side b, const std::function<double(const Block&)>& num, const std::function<double(const Block&)>& den,
                 double scale = 1) {
    auto value = [&](const Block& x) { return den(x) > 0 ? scale * num(x) / den(x) : 0.0; };
    row.a = value(a.total);
    row.b = value(b.total);
    std::vector<double> ra, rb;
    for (const auto& x : a.blocks)
        if (den(x) > 0) ra.push_back(value(x));
    for (const auto& x : b.blocks)
        if (den(x) > 0) rb.push_back(value(x));
    if (num(a.total) + num(b.total) > 0) {
        row.test = welch(ra, rb);
        row.test.test = "welch-t over 10 time blocks";
    }
    return row;
}

// A rate of the list (replay/rates.hpp) between two sides.
DiffRow rate_row(const replay::Rate& r, std::string key, std::string label, bool headline, Side a, Side b) {
    return rate_row(row_of(std::move(key), std::move(label), r.unit, headline, r.count), a, b,
                    [&r](const Block& x) { return block_count(x, r.count); }, [&r](const Block& x) { return block_count(x, r.per); }, r.scale);
}

// The rates diff shows per vCPU (a vCPU's blocks count guest time, exits, injections, EOIs).
constexpr const replay::Rate* kPerVcpuRates[] = {&replay::rate("exits_per_guest_s"), &replay::rate("injections_per_guest_s"),
                                                 &replay::rate("eoi_exits_per_interrupt")};

// `s` as "vcpuN", "vmM/vcpuN", "N" or "M/N": the ref, or nullopt.
std::optional<VcpuRef> parse_ref(const std::string& s) {
    auto number = [](const std::string& t, int& out) {
        if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return false;
        out = std::stoi(t);
        return true;
    };
    VcpuRef r;
    std::string vm, vcpu = s;
    if (const auto slash = s.find('/'); slash != std::string::npos) {
        vm = s.substr(0, slash);
        vcpu = s.substr(slash + 1);
        if (vm.rfind("vm", 0) == 0) vm = vm.substr(2);
        if (!number(vm, r.vm)) return std::nullopt;
    }
    if (vcpu.rfind("vcpu", 0) == 0) vcpu = vcpu.substr(4);
    if (!number(vcpu, r.vcpu)) return std::nullopt;
    return r;
}

// Why vector v's inject→EOI rows do not compare between a and b, or empty: one side saw
// none of the vector's EOIs late (no PV EOI for it) and the other more than the
// tolerance. Two runs that both use PV EOI compare even when their mixes differ (the
// share of EOIs that still exit varies with what else is pending): each percentile
// then mixes the same two kinds of span.
std::string eoi_seen_differs(const RunDigest& a, const RunDigest& b, int v) {
    auto late = [v](const RunDigest& d) -> std::optional<double> {
        const auto it = d.eoi_seen.find(v);
        if (it == d.eoi_seen.end() || it->second[0] + it->second[1] == 0) return std::nullopt;
        return static_cast<double>(it->second[1]) / static_cast<double>(it->second[0] + it->second[1]);
    };
    const auto la = late(a), lb = late(b);
    if (!la || !lb || std::min(*la, *lb) > 0 || std::max(*la, *lb) <= kEoiSeenLateTolerance) return {};
    char text[200];
    std::snprintf(text, sizeof text,
                  "EOI observed at different points: %.0f %% of A's and %.0f %% of B's EOIs of %s were seen only at a later exit "
                  "(PV EOI on one side only), the rest at the EOI's own exit",
                  100 * *la, 100 * *lb, hex(v).c_str());
    return text;
}

std::string refs_of(const RunDigest& d) {
    std::string o;
    for (const auto& [v, x] : d.vcpus) o += (o.empty() ? "" : ", ") + to_string(v);
    return o.empty() ? "none" : o;
}

}  // namespace

std::string to_string(VcpuRef v) { return (v.vm ? "vm" + std::to_string(v.vm) + "/" : std::string()) + "vcpu" + std::to_string(v.vcpu); }

VcpuMap same_ids(const RunDigest& a, const RunDigest& b) {
    VcpuMap m;
    for (const auto& [v, x] : a.vcpus)
        if (b.vcpus.count(v)) m.emplace_back(v, v);
    return m;
}

std::optional<VcpuMap> parse_vcpu_map(const std::string& text, const RunDigest& a, const RunDigest& b, std::string& error) {
    VcpuMap m;
    std::set<VcpuRef> seen_a, seen_b;
    std::size_t from = 0;
    while (from <= text.size()) {
        const auto comma = std::min(text.find(',', from), text.size());
        const std::string pair = text.substr(from, comma - from);
        const std::string where = "at " + std::to_string(from + 1) + ": ";
        const auto eq = pair.find('=');
        if (eq == std::string::npos) {
            error = where + "a pair A=B (a vCPU of A, '=', a vCPU of B: 0=2, vm1/vcpu0=vm0/vcpu0)";
            return std::nullopt;
        }
        const auto ra = parse_ref(pair.substr(0, eq)), rb = parse_ref(pair.substr(eq + 1));
        if (!ra || !rb) {
            error = where + "'" + pair.substr(0, eq) + "' and '" + pair.substr(eq + 1) + "' must each be N, vcpuN or vmM/vcpuN";
            return std::nullopt;
        }
        if (!a.vcpus.count(*ra)) {
            error = where + to_string(*ra) + " is not a vCPU of A (" + a.name + " has " + refs_of(a) + ")";
            return std::nullopt;
        }
        if (!b.vcpus.count(*rb)) {
            error = where + to_string(*rb) + " is not a vCPU of B (" + b.name + " has " + refs_of(b) + ")";
            return std::nullopt;
        }
        if (!seen_a.insert(*ra).second || !seen_b.insert(*rb).second) {
            error = where + "each vCPU may be paired once (" + pair + " repeats one)";
            return std::nullopt;
        }
        m.emplace_back(*ra, *rb);
        from = comma + 1;
    }
    return m;
}

RunDigest digest(std::string name, const Trace& t, const replay::ReplayResult& r) {
    RunDigest d;
    d.name = std::move(name);
    if (!t.events.empty()) {
        d.t0 = t.events.ts(0).value();
        d.t1 = t.events.back().ts.value();
    }
    const Blocks B{d.t0, d.t1};
    auto each = [&](std::int64_t ts, const std::function<void(Block&)>& f) {
        f(d.blocks[B.of(ts)]);
        f(d.total);
    };
    // guest time: entry to the vCPU's next exit, split where it crosses blocks; exits;
    // host time per exit: exit to the vCPU's next entry
    struct Open {
        std::int64_t entry = -1, exit = -1;
        std::string reason;
    };
    std::map<std::pair<int, int>, Open> open;
    auto each_vcpu = [&](VmId vm, VcpuId vcpu, std::int64_t ts, const std::function<void(Block&)>& f) {
        if (vcpu == kUnknownVcpu || vm == kUnknownVm) return;
        auto& v = d.vcpus[{vm.value(), vcpu.value()}];
        f(v.blocks[B.of(ts)]);
        f(v.total);
    };
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const auto kind = t.events.kind(i);
        if (kind != EventKind::Entry && kind != EventKind::Exit && kind != EventKind::Lost) continue;
        const Event e = t.events[i];
        if (kind == EventKind::Lost) {  // what happened in a gap is not known: no interval spans it
            open.clear();
            continue;
        }
        if (e.vcpu == kUnknownVcpu || e.vm == kUnknownVm) continue;
        Open& o = open[{e.vm.value(), e.vcpu.value()}];
        const std::int64_t ts = e.ts.value();
        if (kind == EventKind::Entry) {
            if (o.exit >= 0) {
                d.host_time_by_reason[o.reason].add(static_cast<double>(ts - o.exit));
                d.host_time_by_reason_block[o.reason][B.of(o.exit)].add(static_cast<double>(ts - o.exit));
            }
            o.entry = ts;
            o.exit = -1;
            continue;
        }
        o.reason = exit_reason_key(e);
        each(ts, [&](Block& x) {
            ++x.exits;
            ++x.exits_by_reason[o.reason];
        });
        each_vcpu(e.vm, e.vcpu, ts, [](Block& x) { ++x.exits; });
        auto& per_vcpu = d.vcpus[{e.vm.value(), e.vcpu.value()}];
        if (o.entry >= 0) {
            for (std::int64_t from = o.entry; from < ts;) {
                std::size_t k = B.of(from);
                while (k + 1 < RunDigest::kBlocks && B.start(k + 1) <= from) ++k;  // of() rounds; the next block must start after `from`
                const std::int64_t to = k + 1 < RunDigest::kBlocks ? std::min(ts, B.start(k + 1)) : ts;
                const double s = static_cast<double>(to - from) / 1e9;
                d.blocks[k].guest_s += s;
                d.total.guest_s += s;
                per_vcpu.blocks[k].guest_s += s;
                per_vcpu.total.guest_s += s;
                from = to;
            }
        }
        o.entry = -1;
        o.exit = ts;
    }
    for (const auto& ir : r.interrupts) {
        if (ir.inject_ts) {
            each(ir.inject_ts, [&](Block& x) {
                ++x.injections;
                ++x.injections_by_vector[ir.vector];
            });
            each_vcpu(ir.vm, ir.vcpu, ir.inject_ts, [](Block& x) { ++x.injections; });
        }
        if (ir.eoi_ts && ir.eoi_path) {
            const bool pv = *ir.eoi_path == replay::EoiPath::PvEoi;
            each(ir.eoi_ts, [&](Block& x) {
                ++x.eois;
                x.pv_eois += pv;
                ++x.eois_by_path[replay::to_string(*ir.eoi_path)];
            });
            each_vcpu(ir.vm, ir.vcpu, ir.eoi_ts, [pv](Block& x) {
                ++x.eois;
                x.pv_eois += pv;
            });
        }
        auto sample = [&](std::map<int, RunDigest::Samples>& m, std::int64_t at, std::int64_t ns) {
            auto& blocks = m[ir.vector];
            blocks.resize(RunDigest::kBlocks);
            blocks[B.of(at)].push_back(ns);
        };
        if (ir.accept_ts && ir.inject_ts && ir.inject_ts >= ir.accept_ts) sample(d.accept_to_inject, ir.inject_ts, ir.inject_ts - ir.accept_ts);
        if (ir.inject_ts && ir.eoi_ts && ir.eoi_ts >= ir.inject_ts) {
            sample(d.inject_to_eoi, ir.eoi_ts, ir.eoi_ts - ir.inject_ts);
            ++d.eoi_seen[ir.vector][ir.eoi_path && *ir.eoi_path == replay::EoiPath::PvEoi];
        }
    }
    for (const auto& ipi : r.ipis)
        each(ipi.ts, [&](Block& x) {
            ++x.ipis;
            x.ipi_targets += ipi.expected.size();
        });
    for (const auto& f : r.findings) ++d.findings_by_rule[std::string(replay::rule_info(f.rule).id)];
    d.real_eois = r.stats.real_eois();
    d.pv_eois = r.stats.pv_eois;
    d.predicted_pv_eoi_saved = r.stats.predicted_pv_eoi_saved;
    d.pv_ipi_saved = r.stats.exits_saved_pv_ipi;
    d.predicted_pv_ipi_saved = r.stats.predicted_pv_ipi_saved;
    d.hv_eoi_assist_saved = r.stats.exits_saved_hv_eoi_assist;
    d.hv_ipi_saved = r.stats.exits_saved_hv_ipi;
    return d;
}

std::vector<DiffRow> compare(const RunDigest& a, const RunDigest& b, const VcpuMap* vcpus) {
    std::vector<DiffRow> rows;
    const auto guest = [](const Block& x) { return x.guest_s; };
    const auto injections = [](const Block& x) { return static_cast<double>(x.injections); };
    // the list's rates: how often the guest leaves, for how many interrupts, what the
    // PV features saved; those counted for the whole run only have no test
    for (const replay::Rate& r : replay::rates()) {
        if (!run_total_only(r.count)) {
            rows.push_back(rate_row(r, std::string(r.key), std::string(r.label), r.headline, a, b));
            continue;
        }
        DiffRow row = row_of(std::string(r.key), std::string(r.label), r.unit, r.headline, r.count);
        auto value = [&r](const RunDigest& d) {
            const double per = run_total(d, r.per);
            return per > 0 ? r.scale * run_total(d, r.count) / per : 0;
        };
        row.a = value(a);
        row.b = value(b);
        rows.push_back(std::move(row));
    }
    // exits per reason, injections per vector, EOIs per path
    std::set<std::string> reasons, paths;
    std::set<int> vectors;
    for (const auto* d : {&a, &b}) {
        for (const auto& [k, n] : d->total.exits_by_reason) reasons.insert(k);
        for (const auto& [k, n] : d->total.eois_by_path) paths.insert(k);
        for (const auto& [k, n] : d->total.injections_by_vector) vectors.insert(k);
    }
    constexpr auto& exits_rate = replay::rate("exits_per_guest_s");
    constexpr auto& injections_rate = replay::rate("injections_per_guest_s");
    for (const auto& reason : reasons)
        rows.push_back(rate_row(row_of(std::string(exits_rate.key) + "[" + reason + "]", reason + " " + std::string(exits_rate.label),
                                       exits_rate.unit, false, RunCount::Exits, reason),
                                a, b, [&reason](const Block& x) { return static_cast<double>(get(x.exits_by_reason, reason)); }, guest));
    for (int v : vectors)
        rows.push_back(rate_row(row_of(std::string(injections_rate.key) + "[" + hex(v) + "]", "vector " + hex(v) + " injections per second in the guest",
                                       injections_rate.unit, false, RunCount::Injections, {}, v),
                                a, b, [v](const Block& x) { return static_cast<double>(get(x.injections_by_vector, v)); }, guest));
    for (const auto& path : paths)
        rows.push_back(rate_row(row_of("eois_per_interrupt[" + path + "]", "EOIs by " + path + " per injected interrupt", "/interrupt", false,
                                       RunCount::Eois, path),
                                a, b, [&path](const Block& x) { return static_cast<double>(get(x.eois_by_path, path)); }, injections));
    // latency per vector: percentiles, each with a block bootstrap of its change (the
    // maximum has no test: one sample decides it)
    struct Stage {
        const char* key;
        const char* label;
        RunCount counts;
        std::map<int, RunDigest::Samples> RunDigest::*of;
    };
    for (const auto& [stage, label, counts, of] : {Stage{"accept_to_inject", "accept -> inject", RunCount::AcceptToInject, &RunDigest::accept_to_inject},
                                                   Stage{"inject_to_eoi", "inject -> EOI", RunCount::InjectToEoi, &RunDigest::inject_to_eoi}}) {
        std::set<int> vs;
        for (const auto* d : {&a, &b})
            for (const auto& [v, samples] : d->*of) vs.insert(v);
        for (int v : vs) {
            static const RunDigest::Samples none(RunDigest::kBlocks);
            const auto& ba = (a.*of).count(v) ? (a.*of).at(v) : none;
            const auto& bb = (b.*of).count(v) ? (b.*of).at(v) : none;
            std::vector<std::int64_t> sa, sb;
            for (const auto& x : ba) sa.insert(sa.end(), x.begin(), x.end());
            for (const auto& x : bb) sb.insert(sb.end(), x.begin(), x.end());
            std::sort(sa.begin(), sa.end());  // once, for all four percentiles
            std::sort(sb.begin(), sb.end());
            const std::string incomparable = counts == RunCount::InjectToEoi ? eoi_seen_differs(a, b, v) : std::string();
            for (const auto& [name, q] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"max", 1.0}}) {
                DiffRow row = row_of(std::string(name) + "." + stage + "[" + hex(v) + "]", std::string(name) + " " + label + " of " + hex(v), "µs",
                                     false, counts, {}, v);
                row.a = static_cast<double>(percentile(sa, q)) / 1e3;
                row.b = static_cast<double>(percentile(sb, q)) / 1e3;
                row.not_comparable = incomparable;
                // the bootstrap runs on the samples in ns; its statistic has no unit
                if (q < 1 && !sa.empty() && !sb.empty() && incomparable.empty()) row.test = bootstrap_percentile(ba, bb, q);
                rows.push_back(std::move(row));
            }
        }
    }
    // time in the host per exit, per reason: Welch's t over the blocks' means
    for (const auto& reason : reasons) {
        const auto ma = a.host_time_by_reason.count(reason) ? a.host_time_by_reason.at(reason) : RunDigest::Moments{};
        const auto mb = b.host_time_by_reason.count(reason) ? b.host_time_by_reason.at(reason) : RunDigest::Moments{};
        DiffRow row = row_of("host_us_per_exit[" + reason + "]", "time in the host per " + reason + " exit", "µs", false, RunCount::Exits, reason);
        row.a = ma.mean / 1e3;
        row.b = mb.mean / 1e3;
        std::vector<double> xa, xb;
        auto means = [&reason](const RunDigest& d, std::vector<double>& out) {
            if (!d.host_time_by_reason_block.count(reason)) return;
            for (const auto& m : d.host_time_by_reason_block.at(reason))
                if (m.n > 0) out.push_back(m.mean);
        };
        means(a, xa);
        means(b, xb);
        if (!xa.empty() && !xb.empty()) {
            row.test = welch(xa, xb);
            row.test.test = "welch-t over 10 time blocks";
        }
        rows.push_back(std::move(row));
    }
    // per vCPU, the headline rates of each pair (named by A's vCPU; the label names B's too
    // when it differs)
    const VcpuMap pairs = vcpus ? *vcpus : same_ids(a, b);
    for (const auto& [va, vb] : pairs) {
        const auto& xa = a.vcpus.at(va);
        const auto& xb = b.vcpus.at(vb);
        const std::string who = to_string(va) + (va == vb ? "" : " (B: " + to_string(vb) + ")");
        for (const replay::Rate* r : kPerVcpuRates) {
            rows.push_back(rate_row(*r, to_string(va) + "." + std::string(r->key), who + ": " + std::string(r->label), false, xa, xb));
            rows.back().vcpus = {va, vb};
        }
    }
    // findings: the replay's verdicts, exact; any change is one
    std::set<std::string> rules;
    for (const auto* d : {&a, &b})
        for (const auto& [k, n] : d->findings_by_rule) rules.insert(k);
    for (const auto& rule : rules) {
        DiffRow row = row_of("findings[" + rule + "]", rule + " findings", "", true, RunCount::Findings, rule);
        row.a = static_cast<double>(get(a.findings_by_rule, rule));
        row.b = static_cast<double>(get(b.findings_by_rule, rule));
        row.test = {row.a != row.b, row.b - row.a, "exact (the replay's verdicts)"};
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string value_text(const DiffRow& r, double v) {
    char b[48];
    if (r.unit == "%") std::snprintf(b, sizeof b, "%.2f%%", v);
    else if (r.unit == "µs") std::snprintf(b, sizeof b, "%.1f", v);
    else if (std::abs(v) >= 100 || v == std::floor(v)) std::snprintf(b, sizeof b, "%.1f", v);
    else std::snprintf(b, sizeof b, "%.4f", v);
    return b;
}

std::string change_text(const DiffRow& r) {
    char b[48];
    if (r.unit == "%") std::snprintf(b, sizeof b, "%+.2f pt", r.change());  // a share's change: in points, not relative
    else if (const auto q = r.ratio()) std::snprintf(b, sizeof b, "%+.1f%%", 100 * (*q - 1));
    else if (r.b == 0) std::snprintf(b, sizeof b, "=");
    else std::snprintf(b, sizeof b, "new");
    return b;
}

const char* verdict_text(const DiffRow& r) {
    if (!r.not_comparable.empty()) return "not comparable";
    return !r.test.test[0] ? "-" : r.test.significant ? "YES" : "no";
}

}  // namespace irqflow::ui
