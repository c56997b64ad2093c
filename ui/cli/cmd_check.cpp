// irqflow check: replay a trace and report every divergence and liveness failure.
// Exit 0 when everything checked agrees, 1 on findings, 2 on bad input.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <iostream>
#include <type_traits>
#include <variant>

#include "args.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/replay/statistics.hpp"
#include "finding_format.hpp"
#include "guest_report.hpp"
#include "json.hpp"
#include "live_printer.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {
namespace {

using namespace irqflow::replay;

std::string ts_text(TimestampNs ts) {
    char b[40];
    std::snprintf(b, sizeof b, "%lld.%09lld", static_cast<long long>(ts.value() / 1000000000),
                  static_cast<long long>(ts.value() % 1000000000));
    return b;
}

std::string who(const Finding& f) {
    std::string s = f.vm == kUnknownVm ? "vm?" : "vm" + std::to_string(f.vm.value());
    return s + (f.vcpu == kUnknownVcpu ? "/-" : "/vcpu" + std::to_string(f.vcpu.value()));
}

// "12/40 (30.0%)"; with nothing to count, just "0/0".
std::string of(std::uint64_t a, std::uint64_t b) {
    char s[96];
    if (b) std::snprintf(s, sizeof s, "%llu/%llu (%.1f%%)", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b),
                         100.0 * static_cast<double>(a) / static_cast<double>(b));
    else std::snprintf(s, sizeof s, "%llu/0", static_cast<unsigned long long>(a));
    return s;
}

// Accept→inject and inject→EOI percentiles per vector, in µs (what --json gives in ns).
void print_latency(const ReplayStats& s) {
    std::set<int> vectors;
    for (const auto& [v, l] : s.accept_to_inject) vectors.insert(v);
    for (const auto& [v, l] : s.inject_to_eoi) vectors.insert(v);
    if (vectors.empty()) return;
    std::printf("\nlatency (µs)  %-50s  %s\n", "accept → inject", "inject → EOI");  // → is 3 bytes, 1 column
    std::printf("  vector %8s %9s %9s %9s %9s  %8s %9s %9s %9s %9s\n", "n", "p50", "p90", "p99", "max", "n", "p50", "p90", "p99", "max");
    const auto cells = [](const std::map<int, Latency>& m, int v) {
        char b[96];
        const auto it = m.find(v);
        if (it == m.end() || !it->second.count) {
            std::snprintf(b, sizeof b, "%8s %9s %9s %9s %9s", "0", "-", "-", "-", "-");
            return std::string(b);
        }
        const Latency& l = it->second;
        std::snprintf(b, sizeof b, "%8llu %9.1f %9.1f %9.1f %9.1f", static_cast<unsigned long long>(l.count), static_cast<double>(l.p50) / 1e3,
                      static_cast<double>(l.p90) / 1e3, static_cast<double>(l.p99) / 1e3, static_cast<double>(l.max) / 1e3);
        return std::string(b);
    };
    for (int v : vectors) std::printf("    0x%02x %s  %s\n", v, cells(s.accept_to_inject, v).c_str(), cells(s.inject_to_eoi, v).c_str());
}

std::string clock_text(const std::string& clock) {
    if (clock.empty()) return "clock not recorded";
    switch (clock_order(clock)) {
    case ClockOrder::PerCpu: return "clock " + clock + " (per-CPU: not ordered across CPUs)";
    case ClockOrder::CrossCpu: return "clock " + clock;
    default: return "clock " + clock + " (cross-CPU order unknown)";
    }
}

// A root finding's follow-ons in one line: "+ 3 follow-on EOI-NOT-HIGHEST-ISR, 1
// follow-on PVEOI-NOT-ARMED until 46.091695945 s".
void print_follow_ons(const ReplayResult& r, const std::vector<std::size_t>& follow_ons) {
    std::map<std::string_view, std::size_t> by_rule;
    TimestampNs last;
    for (auto i : follow_ons) {
        ++by_rule[rule_info(r.findings[i].rule).id];
        last = std::max(last, r.findings[i].ts);
    }
    std::cout << "  +";
    const char* sep = " ";
    for (const auto& [rule, n] : by_rule) {
        std::cout << sep << n << " follow-on " << rule;
        sep = ", ";
    }
    std::cout << " until " << ts_text(last) << " s\n";
}

std::string at_record(const Trace& t, std::uint64_t record) { return record_name(t, record); }

// The rules that had nothing to judge, those with the same reason on one line.
void print_not_judged(const ReplayResult& r, bool& said) {
    if (r.not_judged.empty()) return;
    std::vector<std::pair<std::string, std::string>> lines;  // reason → rules, in rules.def order
    for (const auto& n : r.not_judged) {
        auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == n.why; });
        if (it == lines.end()) lines.push_back({n.why, std::string(rule_info(n.rule).id)});
        else it->second += ", " + std::string(rule_info(n.rule).id);
    }
    std::printf("%snot judged (the input gives these rules nothing to check):\n", said ? "\n" : "");
    for (const auto& [why, rules] : lines) std::printf("  %s: %s\n", rules.c_str(), why.c_str());
    said = true;
}

// A root finding: what most likely happened first, then the rule and its evidence.
void print_root(const Finding& f, const Trace& t) {
    const auto& info = rule_info(f.rule);
    if (f.diagnosis) std::cout << diagnosis_sentence(f, t) << "\n  ";
    std::cout << info.id << ' ' << who(f) << " at " << ts_text(f.ts) << ' ' << finding_place(f, t) << ": expected " << f.expected
              << "; observed " << f.observed;
    for (const auto& [rec, what] : f.chain) std::cout << " [" << at_record(t, rec) << ": " << what << "]";
    if (!f.resync.empty()) std::cout << "; model re-synchronized: " << f.resync;
    if (f.at_end) std::cout << " (decided at the end of the input)";
    std::cout << '\n';
    if (f.diagnosis)
        for (const auto& a : f.diagnosis->alternatives) std::cout << "  or: " << replay::sentence(a, record_namer(t)) << '\n';
}

void print_summary(const ReplayResult& r, const Trace& t, bool said);

void print_text(const ReplayResult& r, const Trace& t, const std::string& shown) {
    std::map<std::size_t, std::vector<std::size_t>> follow_ons;  // root → its follow-ons
    for (std::size_t i = 0; i < r.findings.size(); ++i)
        if (r.findings[i].caused_by) follow_ons[*r.findings[i].caused_by].push_back(i);
    for (std::size_t i = 0; i < r.findings.size(); ++i) {
        if (r.findings[i].caused_by) continue;
        print_root(r.findings[i], t);
        if (const auto it = follow_ons.find(i); it != follow_ons.end()) print_follow_ons(r, it->second);
    }
    if (!r.findings.empty())
        std::cout << "(irqflow explain " << shown << " N: the Nth finding above with every record of its evidence)\n";
    print_summary(r, t, !r.findings.empty());
}

// Warnings, notes, what was not judged and the statistics. `said`: something was
// printed above (a blank line only between findings or warnings and the summary).
void print_summary(const ReplayResult& r, const Trace& t, bool said) {
    const auto& s = r.stats;
    for (const auto& w : t.meta.warnings) {
        std::printf("%swarning: %s\n", said && &w == &t.meta.warnings.front() ? "\n" : "", w.c_str());
        said = true;
    }
    for (const auto& n : t.meta.notes) {
        std::printf("%snote: %s\n", said && &n == &t.meta.notes.front() && t.meta.warnings.empty() ? "\n" : "", n.c_str());
        said = true;
    }
    print_not_judged(r, said);
    if (r.final_state.empty()) {
        std::printf("%swarning: no vCPU could be identified (no kvm_entry/kvm_exit in the trace): nothing was checked\n", said ? "\n" : "");
        said = true;
    }
    std::printf("%sreplay: %zu findings (%llu divergences, %llu liveness; %llu root, %llu follow-on); PV EOI semantics: %s\n",
                said ? "\n" : "", r.findings.size(), static_cast<unsigned long long>(r.divergences()), static_cast<unsigned long long>(r.liveness_failures()),
                static_cast<unsigned long long>(r.findings.size() - r.follow_ons()), static_cast<unsigned long long>(r.follow_ons()),
                to_string(r.semantics));
    std::printf("checked: %s checkable injections (of %llu kvm_inj_virq; soft, re-injected and nested ones are not judged), %s EOIs, %llu IPIs\n",
                of(s.injections_checked, s.checkable_injections()).c_str(), static_cast<unsigned long long>(s.injections),
                of(s.eois_checked, s.real_eois()).c_str(), static_cast<unsigned long long>(s.ipis_checked));
    std::printf("%s; ", clock_text(t.meta.clock).c_str());
    if (s.clock_skew_bound_ns)
        std::printf("cross-CPU skew within ±%.1f µs (from %llu pairs)\n", static_cast<double>(s.clock_skew_bound_ns) / 1e3,
                    static_cast<unsigned long long>(s.clock_skew_pairs));
    else
        std::printf("cross-CPU skew not bounded (%llu pairs, none both ways between two CPUs)\n",
                    static_cast<unsigned long long>(s.clock_skew_pairs));
    for (const auto& w : r.late_irr_writes)
        std::printf("late IRR write forgiven: vm%d/vcpu%d 0x%02x injected at record %llu (its accept at record %llu raced the injection at record %llu)\n",
                    w.vm.value(), w.vcpu.value(), w.vector, static_cast<unsigned long long>(w.inject_record),
                    static_cast<unsigned long long>(w.accept_record), static_cast<unsigned long long>(w.first_inject_record));
    std::printf("EOIs by path:");
    for (const auto& [k, v] : s.eois_by_path) std::printf(" %s %llu", k.c_str(), static_cast<unsigned long long>(v));
    if (s.eois_by_path.empty()) std::printf(" none");
    if (s.real_eois()) std::printf("; PV EOI hit rate %.1f%%", 100.0 * s.pv_eoi_hit_rate);
    std::printf("; max nesting %d\n", s.max_nesting);
    std::printf("exits: %llu; saved by PV EOI %llu, by PV IPI %llu; lost-event gaps %llu\n",
                static_cast<unsigned long long>(s.exits), static_cast<unsigned long long>(s.exits_saved_pv_eoi),
                static_cast<unsigned long long>(s.exits_saved_pv_ipi), static_cast<unsigned long long>(s.gaps));
    print_latency(s);
}

Json json_latency(const std::map<int, Latency>& m) {
    Json j = Json::object();
    for (const auto& [vec, l] : m) {
        char k[8];
        std::snprintf(k, sizeof k, "0x%02x", vec);
        j[k] = {{"count", l.count}, {"p50_ns", l.p50}, {"p90_ns", l.p90}, {"p99_ns", l.p99}, {"max_ns", l.max}};
    }
    return j;
}

Json json_stat(const StatValue& v) {
    return std::visit(
        [](const auto& x) -> Json {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string_view>) return std::string(x);
            else if constexpr (std::is_same_v<T, const std::map<std::string, std::uint64_t>*>) return json_counts(*x);
            else if constexpr (std::is_same_v<T, const std::map<int, Latency>*>) return json_latency(*x);
            else return x;
        },
        v);
}

// The summary: every kCheck statistic in list order; "a.b" keys nest under "a".
Json json_summary(const ReplayResult& r) {
    Json js = Json::object();
    const auto list = statistics();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& s = list[i];
        if (!(s.outputs & kCheck)) continue;
        const auto dot = s.key.find('.');
        if (dot == std::string_view::npos) js[std::string(s.key)] = json_stat(stat_value(r, i));
        else js[std::string(s.key.substr(0, dot))][std::string(s.key.substr(dot + 1))] = json_stat(stat_value(r, i));
    }
    return js;
}

// One finding as an element of `check --json`'s "findings".
Json finding_json(const Finding& f, const Trace& t) {
    const auto line = [&t](Json& j, std::uint64_t record) {
        if (const auto l = t.line_of(record)) j["line"] = *l;
    };
    {
        Json jf;
        jf["rule"] = rule_info(f.rule).id;
        jf["severity"] = to_string(rule_info(f.rule).severity);
        jf["vm"] = json_id(f.vm, kUnknownVm);
        jf["vcpu"] = json_id(f.vcpu, kUnknownVcpu);
        jf["ts_ns"] = f.ts.value();
        jf["record"] = f.record;
        line(jf, f.record);
        if (f.guest_record) jf["guest_record"] = *f.guest_record;
        jf["expected"] = f.expected;
        jf["observed"] = f.observed;
        Json chain = Json::array();
        for (const auto& [rec, what] : f.chain) {
            Json jc;
            jc["record"] = rec;
            line(jc, rec);
            jc["what"] = what;
            chain.push_back(std::move(jc));
        }
        jf["chain"] = std::move(chain);
        if (!f.resync.empty()) jf["resync"] = f.resync;
        if (f.caused_by) jf["caused_by"] = *f.caused_by;
        if (f.diagnosis && !f.caused_by) jf["diagnosis"] = diagnosis_json(*f.diagnosis, t);
        if (f.at_end) jf["decided"] = "at the end of the input";
        return jf;
    }
}

// What check --json says after the findings (and check --follow's last line): the
// statistics, the input's warnings and notes, the rules it gave nothing to judge.
void add_result_json(Json& j, const ReplayResult& r, const Trace& t) {
    j["summary"] = json_summary(r);
    j["input"] = {{"format", t.meta.format}, {"warnings", t.meta.warnings}, {"notes", t.meta.notes}};
    Json not_judged = Json::array();
    for (const auto& n : r.not_judged) not_judged.push_back({{"rule", rule_info(n.rule).id}, {"why", n.why}});
    j["not_judged"] = std::move(not_judged);
}

void print_json(const ReplayResult& r, const Trace& t, const GuestReport* guest) {
    Json findings = Json::array();
    for (const auto& f : r.findings) findings.push_back(finding_json(f, t));
    Json j;
    j["findings"] = std::move(findings);
    add_result_json(j, r, t);
    if (guest) j["guest"] = guest_report_json(*guest);
    std::cout << json_text(j) << '\n';
}

struct CheckOptions {
    std::string trace, serial, guest;
    bool json = false, follow = false;
    ReplayOptions replay;
};

// `check --follow`: findings as they are decided (ui/README.md, "Live check"). On a
// terminal a status line on stderr, rewritten at most once a second; on a pipe only
// findings until the end.
int run_follow(const CheckOptions& a) {
    if (!a.serial.empty()) throw UsageError("--serial cannot be used with --follow (the console log is aligned on the whole trace)");
    const bool stdin_given = a.trace == "-";
    const std::string shown = stdin_given ? "<stdin>" : a.trace;
    int fd = 0;
    if (!stdin_given) {
        fd = ::open(a.trace.c_str(), O_RDONLY | O_CLOEXEC);  // a FIFO: waits for its writer
        if (fd < 0) throw InputError(a.trace, {}, std::string("cannot open: ") + std::strerror(errno));
    }
    LivePrinter printer(a.json);
    const pipeline::LiveWatch watch = printer.watch();
    const pipeline::Checked c = [&] {
        try {
            return pipeline::check_live(shown, fd, a.replay, watch);
        } catch (...) {
            if (fd) ::close(fd);
            throw;
        }
    }();
    if (fd) ::close(fd);
    printer.end(c);
    return c.result.divergences() + c.result.liveness_failures() ? 1 : kExitOk;
}

int run(const CheckOptions& a) {
    if (a.follow) {
        if (!a.guest.empty()) throw UsageError("--guest cannot be used with --follow (the guest's trace is matched to the whole host trace)");
        return run_follow(a);
    }
    const pipeline::Checked c =
        pipeline::check({readable_trace(a.trace), a.serial, {}, a.guest.empty() ? std::string() : readable_trace(a.guest)}, a.replay);
    if (c.serial && !a.json) std::cerr << "irqflow: serial " << a.serial << ": " << c.serial->method << "\n";
    if (c.guest && !a.json)
        for (const auto& n : c.guest->meta.notes) std::cerr << "irqflow: note: " << a.guest << ": " << n << "\n";
    std::optional<GuestReport> guest;
    if (c.guest) guest = GuestReport{a.guest, c.guest_clock, *c.result.guest};
    if (a.json) print_json(c.result, c.trace, guest ? &*guest : nullptr);
    else {
        print_text(c.result, c.trace, shown_name(a.trace));
        if (guest) print_guest_report(*guest);
    }
    return c.result.divergences() + c.result.liveness_failures() ? 1 : kExitOk;
}

}  // namespace

LivePrinter::LivePrinter(bool json) : json_(json), tty_(::isatty(2) != 0) {}

pipeline::LiveWatch LivePrinter::watch(std::function<void(const Finding&, const std::string& json)> root) {
    pipeline::LiveWatch w;
    w.found = [this, root](const Finding& f, std::size_t, const Trace& t) {
        if (status_shown_) std::cerr << "\r\033[K" << std::flush;
        const std::string line = json_ || (root && !f.caused_by) ? json_text(finding_json(f, t)) : std::string();
        if (json_) std::cout << line << '\n';
        else if (!f.caused_by) print_root(f, t);
        std::cout << std::flush;
        if (!f.caused_by) {
            ++roots_;
            if (root) root(f, line);
        }
    };
    if (tty_)
        w.status = [this](std::uint64_t events, std::uint64_t lost, std::size_t findings) {
            std::cerr << "\r\033[Kirqflow: " << events << " events (" << (events - before_) << "/s), " << lost << " lost, " << findings
                      << " findings" << std::flush;
            before_ = events;
            status_shown_ = true;
        };
    return w;
}

void LivePrinter::end(const pipeline::Checked& c) {
    if (status_shown_) std::cerr << "\r\033[K" << std::flush;
    if (json_) {
        Json j;
        add_result_json(j, c.result, c.trace);
        std::cout << json_text(j) << '\n';
    } else {
        print_summary(c.result, c.trace, roots_ > 0);
    }
    std::cout << std::flush;
}

void add_check(CLI::App& app, Commands& out) {
    auto a = std::make_shared<CheckOptions>();
    auto* c = app.add_subcommand("check",
                                 "replay every vCPU's local APIC, PV EOI and IPIs; exit 1 on divergences or liveness failures");
    add_trace(*c, a->trace);
    add_serial(*c, a->serial);
    add_guest(*c, a->guest);
    add_semantics(*c, a->replay.semantics);
    c->add_flag("--json", a->json, "one JSON document: findings with evidence, statistics, latencies (with --follow: one object per line)");
    c->add_flag("--follow", a->follow,
                "TRACE is report text being written (- for standard input, or a FIFO): print each finding as soon as it is decided");
    c->footer("\nExit: 0 no findings, 1 findings, 2 bad input.\n" +
              examples({"irqflow check samples/pveoi-on.dat", "irqflow check trace.dat --serial console.log --semantics 2012",
                        "irqflow check samples/hostguest.dat --guest samples/hostguest-guest.dat",
                        "irqflow check bug-report.txt --json | jq '.findings[0]'",
                        "trace-cmd stream -e kvm | irqflow check --follow -"}));
    out.emplace_back(c, [a] { return run(*a); });
}

}  // namespace irqflow::cli
