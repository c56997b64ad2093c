// Mutation tests: inject one fault into a real capture and require the replay to catch
// it with the rule that fault should trip; unmutated captures give zero divergences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <functional>
#include <map>
#include <set>

#include "edit_events.hpp"
#include "helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/diagnosis.hpp"
#include "irqflow/replay/replay.hpp"

using namespace irqflow;
using namespace irqflow::replay;
using namespace irqflow::test;

namespace {

// The captures with their full boot (the mid-flight cut is checked for silence only).
const std::vector<std::string> kSamples = {"pveoi-on.dat", "pveoi-off.dat", "pvipi-off.dat", "hyperv.dat",
                                           "xapic.dat",    "lost.dat",      "instance.dat"};

// Under the sanitizers (helpers.hpp, dat_samples) the mutants of two of them: between
// them every mutation finds places to apply, at a third of the time of all seven.
bool swept(const std::string& name) {
    return !kSanitized || name == "pveoi-on.dat" || name == "hyperv.dat";
}

bool is(const Event& e, EventKind k) { return e.kind == k; }
bool real_injection(const Event& e) {
    return is(e, EventKind::InjVirq) && !e.get(slot::inj_soft).value_or(0) && !e.get(slot::inj_reinjected).value_or(0);
}

// Injections of local-APIC vectors (the 8259's, below 0x40 here, never reach IRR/ISR).
std::vector<std::size_t> lapic_injections(const Trace& t) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (real_injection(t.events[i]) && t.events[i].get(slot::inj_vector).value_or(0) >= 0x40) c.push_back(i);
    return c;
}

struct Mutation {
    const char* name;
    std::set<std::string> catches;  // rules that detect this fault
    // Candidate positions in the event vector.
    std::function<std::vector<std::size_t>(const Trace&)> candidates;
    std::function<void(std::vector<Event>&, std::size_t)> apply;  // on a copy of the events
    // What a right diagnosis names: one of these event kinds, in a window holding one of
    // the records the mutation touched (the candidate's own unless `touched` says more).
    std::set<EventKind> kinds = {};
    std::function<std::vector<std::uint64_t>(const Trace&, std::size_t)> touched = {};
};

// Index of the next event on the same thread after i matching pred, or npos.
template <class Events>
std::size_t next_on_thread(const Events& ev, std::size_t i, const std::function<bool(const Event&)>& pred, std::size_t limit = 64) {
    for (std::size_t j = i + 1, seen = 0; j < ev.size() && seen < limit; ++j) {
        if (ev[j].tid != ev[i].tid) continue;
        ++seen;
        if (pred(ev[j])) return j;
    }
    return std::string::npos;
}

// The kvm_eoi of each kvm_eoi + kvm_pv_eoi pair.
std::vector<std::size_t> pv_eoi_pairs(const Trace& t) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i + 1 < t.events.size(); ++i)
        if (is(t.events[i], EventKind::Eoi) &&
            next_on_thread(t.events, i, [](const Event& e) { return e.kind == EventKind::PvEoi; }, 1) != std::string::npos)
            c.push_back(i);
    return c;
}

std::vector<Mutation> mutations() {
    std::vector<Mutation> m;
    const std::set<std::string> lost_eoi = {"EOI-NOT-HIGHEST-ISR", "INJ-BLOCKED-BY-PPR", "ISR-ORDER", "LIVE-NO-EOI",
                                            "INJ-NOT-HIGHEST",    "EOI-ISR-NOT-EMPTY",  "PVEOI-NOT-ARMED"};
    m.push_back({"drop a real EOI", lost_eoi,
                 [](const Trace& t) {
                     std::vector<std::size_t> c;
                     for (std::size_t i = 0; i < t.events.size(); ++i)
                         if (is(t.events[i], EventKind::Eoi) && t.events[i].get(slot::eoi_vector).value_or(-1) >= 16 &&
                             next_on_thread(t.events, i, [](const Event& e) { return e.kind == EventKind::PvEoi; }, 1) == std::string::npos)
                             c.push_back(i);
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) { ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i)); },
                 {EventKind::Eoi}});
    m.push_back({"drop a PV EOI (kvm_eoi + kvm_pv_eoi)", lost_eoi, pv_eoi_pairs,
                 [](std::vector<Event>& ev, std::size_t i) {
                     auto j = next_on_thread(ev, i, [](const Event& e) { return e.kind == EventKind::PvEoi; }, 1);
                     ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(j));
                     ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i));
                 },
                 {EventKind::Eoi, EventKind::PvEoi}});
    m.push_back({"drop the kvm_eoi of a PV EOI pair", {"PVEOI-WITHOUT-EOI"}, pv_eoi_pairs,
                 [](std::vector<Event>& ev, std::size_t i) { ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i)); },
                 {EventKind::Eoi}});
    m.push_back({"change an injected vector", {"INJ-NOT-PENDING", "INJ-NOT-HIGHEST", "EOI-NOT-HIGHEST-ISR"},
                 lapic_injections,
                 [](std::vector<Event>& ev, std::size_t i) {
                     auto v = ev[i].get(slot::inj_vector).value_or(0);
                     ev[i].set(slot::inj_vector, v == 0xe9 ? 0xe8 : 0xe9);  // a vector Linux never uses here
                 },
                 {EventKind::InjVirq}});
    m.push_back({"duplicate an injection", {"INJ-NOT-PENDING", "INJ-BLOCKED-BY-PPR", "ISR-ORDER"},
                 lapic_injections,
                 [](std::vector<Event>& ev, std::size_t i) {
                     Event copy = ev[i];
                     ev.insert(ev.begin() + static_cast<std::ptrdiff_t>(i) + 1, copy);
                 },
                 {EventKind::InjVirq}});
    m.push_back({"drop one IPI destination", {"IPI-MISSING-DEST", "INJ-NOT-PENDING"},
                 [](const Trace& t) {
                     std::vector<std::size_t> c;  // an accept right after an IPI send, on the sender's thread
                     for (std::size_t i = 0; i < t.events.size(); ++i) {
                         const auto& e = t.events[i];
                         const bool send = is(e, EventKind::ApicIpi) || (is(e, EventKind::Hypercall) && e.get(slot::hc_nr) == 10);
                         if (!send) continue;
                         auto j = next_on_thread(t.events, i, [](const Event& x) { return x.kind == EventKind::ApicAcceptIrq; }, 3);
                         if (j != std::string::npos) c.push_back(j);
                     }
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) { ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i)); },
                 {EventKind::ApicAcceptIrq}});
    m.push_back({"drop the accept behind an injection", {"INJ-NOT-PENDING", "IPI-MISSING-DEST"},
                 [](const Trace& t) {
                     // the only accept of that vector for that vCPU since its previous injection
                     std::vector<std::size_t> c;
                     std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> since;  // (vcpu, vec) → accepts
                     for (std::size_t i = 0; i < t.events.size(); ++i) {
                         const auto& e = t.events[i];
                         if (is(e, EventKind::ApicAcceptIrq) && e.get(slot::accept_dm) == 0)
                             since[{e.vcpu.value(), e.get(slot::accept_vec).value_or(0)}].push_back(i);
                         if (real_injection(e)) {
                             auto& v = since[{e.vcpu.value(), e.get(slot::inj_vector).value_or(0)}];
                             if (v.size() == 1 && e.get(slot::inj_vector).value_or(0) >= 0x40) c.push_back(v[0]);
                             v.clear();
                         }
                     }
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) { ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i)); },
                 {EventKind::ApicAcceptIrq}});
    // Swapping an EOI with the injection right after it makes that injection nested
    // (the captures hardly nest on their own: Linux handlers run with interrupts off).
    m.push_back({"swap an EOI with the injection after it", {"EOI-NOT-HIGHEST-ISR", "INJ-BLOCKED-BY-PPR", "ISR-ORDER", "INJ-NOT-HIGHEST", "INJ-NOT-PENDING"},
                 [](const Trace& t) {
                     std::vector<std::size_t> c;
                     for (std::size_t i = 0; i < t.events.size(); ++i) {
                         const auto& e = t.events[i];
                         if (!is(e, EventKind::Eoi) || e.get(slot::eoi_vector).value_or(-1) < 0x40) continue;
                         if (next_on_thread(t.events, i, [](const Event& x) { return x.kind == EventKind::PvEoi; }, 1) != std::string::npos)
                             continue;  // a PV EOI pair is emitted at exit time, not where the guest did it
                         auto j = next_on_thread(t.events, i, [](const Event& x) { return real_injection(x) || x.kind == EventKind::Eoi; }, 40);
                         if (j != std::string::npos && real_injection(t.events[j]) && t.events[j].get(slot::inj_vector).value_or(0) >= 0x40 &&
                             t.events[j].get(slot::inj_vector) != e.get(slot::eoi_vector))
                             c.push_back(i);
                     }
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) {
                     auto j = next_on_thread(ev, i, [](const Event& x) { return real_injection(x); }, 40);
                     std::swap(ev[i].kind, ev[j].kind);
                     std::swap(ev[i].f, ev[j].f);
                     std::swap(ev[i].present, ev[j].present);
                     std::swap(ev[i].name_id, ev[j].name_id);
                 },
                 {EventKind::Eoi, EventKind::InjVirq},
                 [](const Trace& t, std::size_t i) {
                     auto j = next_on_thread(t.events, i, [](const Event& x) { return real_injection(x); }, 40);
                     return std::vector<std::uint64_t>{t.events[i].record, t.events[j].record};
                 }});
    m.push_back({"drop an injection",
                 {"EOI-NOT-HIGHEST-ISR", "EOI-ISR-NOT-EMPTY", "INJ-REINJECT-NOT-IN-SERVICE", "LIVE-PENDING-NOT-INJECTED",
                  "INJ-NOT-HIGHEST", "INJ-NOT-PENDING", "PVEOI-NOT-ARMED"},
                 lapic_injections,
                 [](std::vector<Event>& ev, std::size_t i) { ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i)); },
                 {EventKind::InjVirq}});
    m.push_back({"change an EOI's vector", {"EOI-NOT-HIGHEST-ISR", "EOI-ISR-NOT-EMPTY"},
                 [](const Trace& t) {
                     std::vector<std::size_t> c;
                     for (std::size_t i = 0; i < t.events.size(); ++i)
                         if (is(t.events[i], EventKind::Eoi) && t.events[i].get(slot::eoi_vector).value_or(-1) >= 0x40) c.push_back(i);
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) {
                     auto v = ev[i].get(slot::eoi_vector).value_or(0);
                     ev[i].set(slot::eoi_vector, v == 0xe9 ? 0xe8 : 0xe9);  // never injected in the captures
                 },
                 {EventKind::Eoi}});
    // The interrupt of an IPI goes to another vCPU than its ICR names: the accept right
    // after a unicast send says another (existing) APIC id.
    m.push_back({"change one IPI destination", {"IPI-MISSING-DEST", "IPI-EXTRA-DEST", "INJ-NOT-PENDING"},
                 [](const Trace& t) {
                     std::vector<std::size_t> c;
                     for (std::size_t i = 0; i < t.events.size(); ++i) {
                         const auto& e = t.events[i];
                         if (!is(e, EventKind::ApicIpi) || e.get(slot::ipi_shorthand).value_or(0) != 0) continue;
                         auto j = next_on_thread(t.events, i, [](const Event& x) { return x.kind == EventKind::ApicAcceptIrq; }, 3);
                         if (j != std::string::npos && t.events[j].get(slot::accept_dm) == 0) c.push_back(j);
                     }
                     return c;
                 },
                 [](std::vector<Event>& ev, std::size_t i) {
                     auto a = ev[i].get(slot::accept_apicid).value_or(0);
                     ev[i].set(slot::accept_apicid, a == 0 ? 1 : a - 1);  // the captures' vCPUs have APIC ids 0..3
                 },
                 {EventKind::ApicAcceptIrq, EventKind::ApicIpi}});
    return m;
}

// Calls `visit` for every mutant the tests use: each mutation at up to six places per
// sample, away from boot, from the end (LIVE-NO-EOI needs a second to show) and from
// after the first lost-event gap (state is unknown there: a gap explains anything).
void for_each_mutant(const std::function<void(const std::string& sample, const Mutation&, const Trace& base, std::size_t at,
                                              const ReplayResult&)>& visit) {
    for (const auto& name : kSamples) {
        if (!swept(name)) continue;
        const Trace base = load_trace(sample(name));
        const std::int64_t end = base.events.back().ts.value();
        const std::int64_t start = base.events.front().ts.value();
        std::int64_t first_gap = INT64_MAX;
        for (const auto& e : base.events)
            if (e.kind == EventKind::Lost) { first_gap = e.ts.value(); break; }
        for (const auto& m : mutations()) {
            auto cands = m.candidates(base);
            std::erase_if(cands, [&](std::size_t i) {
                const auto ts = base.events[i].ts.value();
                return ts < start + (end - start) / 3 || ts > std::min(end, first_gap) - 1'500'000'000;
            });
            const std::size_t n = std::min<std::size_t>(cands.size(), 6);
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t at = cands[k * cands.size() / n];
                Trace t = base;
                test::edit_events(t, [&](std::vector<Event>& ev) { m.apply(ev, at); });
                visit(name, m, base, at, replay::replay(t));
            }
        }
    }
}

// Everything a replay concluded: the first findings one per line with their evidence,
// the rest counted per rule and folded into a digest (a cascade runs to thousands of
// lines), then the counters `check` summarizes. The text the mutation golden freezes.
std::string describe(const ReplayResult& r) {
    constexpr std::size_t kListed = 12;
    std::string out;
    std::map<std::string, int> more;
    std::uint64_t digest = 14695981039346656037ULL;  // FNV-1a over every finding line
    char b[64];
    for (std::size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = r.findings[i];
        std::snprintf(b, sizeof b, " vm%d/vcpu%d ts %lld record %llu", f.vm.value(), f.vcpu.value(), static_cast<long long>(f.ts.value()),
                      static_cast<unsigned long long>(f.record));
        std::string line = std::string(rule_info(f.rule).id) + b + ": expected " + f.expected + "; observed " + f.observed;
        for (const auto& [rec, what] : f.chain) line += " [record " + std::to_string(rec) + ": " + what + "]";
        if (!f.resync.empty()) line += "; model re-synchronized: " + f.resync;
        if (f.caused_by) line += " (follow-on of record " + std::to_string(r.findings[*f.caused_by].record) + ")";
        for (unsigned char c : line) digest = (digest ^ c) * 1099511628211ULL;
        if (i < kListed) out += line + '\n';
        else ++more[std::string(rule_info(f.rule).id)];
    }
    if (!more.empty()) {
        out += "  + " + std::to_string(r.findings.size() - kListed) + " more:";
        for (const auto& [rule, n] : more) out += " " + rule + " " + std::to_string(n);
        std::snprintf(b, sizeof b, "; all %zu digest %016llx\n", r.findings.size(), static_cast<unsigned long long>(digest));
        out += b;
    }
    const auto& s = r.stats;
    out += "  injections " + std::to_string(s.injections) + " checked " + std::to_string(s.injections_checked) + " reinjected " +
           std::to_string(s.reinjections) + " extint " + std::to_string(s.extint_injections) + "; eois " + std::to_string(s.eois) +
           " checked " + std::to_string(s.eois_checked) + " none " + std::to_string(s.eoi_nothing_in_service) + "; ipis " +
           std::to_string(s.ipis_checked) + "; unsynced " + std::to_string(s.unsynced_events) + "; coalesced " +
           std::to_string(s.coalesced_accepts) + "; predicted pv-eoi " + std::to_string(s.predicted_pv_eoi_saved) + " pv-ipi " +
           std::to_string(s.predicted_pv_ipi_saved) + "; paths";
    for (const auto& [k, v] : s.eois_by_path) out += " " + k + " " + std::to_string(v);
    return out + "\n";
}

}  // namespace

TEST_CASE("unmutated real captures replay with zero divergences", "[replay][samples]") {
    for (const auto& name : dat_samples()) {
        INFO(name);
        ReplayResult r = replay::replay(load_trace(sample(name)));
        CHECK(r.divergences() == 0);
        CHECK(r.liveness_failures() == 0);
        CHECK(r.stats.injections_checked > 0);
    }
}

// Four properties of every mutant. The mutants are replayed once for all four: each pass
// over the 375 mutants took two minutes under ASan, and there were four.
namespace {

// Each mutant is caught by a rule that fault should trip.
struct CaughtByExpectedRule {
    std::map<std::string, std::pair<int, int>> tally;  // caught, tried
    CaughtByExpectedRule() {
        for (const auto& m : mutations()) tally[m.name] = {0, 0};
    }
    void visit(const std::string& name, const Mutation& m, const Trace& base, std::size_t at, const ReplayResult& r) {
        bool caught = false;
        for (const auto& f : r.findings) caught = caught || m.catches.count(std::string(rule_info(f.rule).id));
        INFO(name << ": " << m.name << " at event " << at << " (record " << base.events[at].record << ")");
        CHECK(caught);
        auto& [c, tried] = tally[m.name];
        c += caught;
        ++tried;
    }
    void finish() {
        int caught = 0, tried = 0;
        for (const auto& [name, ct] : tally) {
            WARN(name << ": caught " << ct.first << "/" << ct.second);
            caught += ct.first;
            tried += ct.second;
            CHECK(ct.second > 0);  // every mutation found places to apply in the samples
        }
        WARN("mutation catch rate: " << caught << "/" << tried);
    }
};

// One fault, one root: after a divergence the model adopts what the trace proved and
// the consequences carry caused_by, so a fault shows as a root or two, not a cascade
// (before that, one wrong IPI destination gave 1,429 findings).
struct FewRootFindings {
    std::vector<std::size_t> roots, all;
    std::size_t worst = 0;
    std::string worst_at;
    void visit(const std::string& name, const Mutation& m, const Trace& base, std::size_t at, const ReplayResult& r) {
        std::size_t n = 0;
        for (const auto& f : r.findings) n += !f.caused_by;
        roots.push_back(n);
        all.push_back(r.findings.size());
        if (n >= worst) {
            worst = n;
            worst_at = name + ": " + m.name + " at record " + std::to_string(base.events[at].record);
        }
        INFO(name << ": " << m.name << " at record " << base.events[at].record);
        CHECK(n >= 1);  // the fault itself is never folded away
        CHECK(n <= 10);
    }
    void finish() {
        REQUIRE(roots.size() >= 2 * mutations().size());
        auto median = [](std::vector<std::size_t> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        std::map<std::size_t, int> histogram;
        for (auto n : roots) ++histogram[n];
        std::string h;
        for (const auto& [n, k] : histogram) h += " " + std::to_string(n) + " root(s): " + std::to_string(k) + " faults;";
        WARN(roots.size() << " faults:" << h << " median " << median(roots) << ", max " << worst << " (" << worst_at
                          << "); all findings median " << median(all) << ", max " << *std::max_element(all.begin(), all.end()));
        CHECK(median(roots) == 1);  // one fault, one root
    }
};

// The diagnosis names the fault: the first root finding's most likely explanation is
// about the kind of event the mutation touched, in a window that holds the touched
// record (replay/README.md, "Diagnosis").
struct DiagnosisNamesMutatedEvent {
    std::map<std::string, std::pair<int, int>> tally;  // named, tried
    int named = 0, tried = 0;
    void visit(const std::string& name, const Mutation& m, const Trace& base, std::size_t at, const ReplayResult& r) {
        const Finding* root = nullptr;
        for (const auto& f : r.findings)
            if (!f.caused_by) { root = &f; break; }
        const std::vector<std::uint64_t> touched = m.touched ? m.touched(base, at) : std::vector<std::uint64_t>{base.events[at].record};
        bool ok = false;
        std::string said = "no root finding";
        if (root && root->diagnosis) {
            const auto& x = root->diagnosis->top;
            ok = m.kinds.count(x.kind) > 0 && std::any_of(touched.begin(), touched.end(), [&](std::uint64_t rec) { return x.from <= rec && rec <= x.to; });
            said = sentence(x, [](std::uint64_t rec) { return "record " + std::to_string(rec); });
        } else if (root) {
            said = std::string(rule_info(root->rule).id) + " without a diagnosis";
        }
        INFO(name << ": " << m.name << " at record " << base.events[at].record << ": " << said);
        CHECK(root != nullptr);
        CHECK((root && root->diagnosis.has_value()));
        if (!ok) WARN("not named: " << name << ": " << m.name << " at record " << base.events[at].record << ": " << said);
        auto& [n, k] = tally[m.name];
        n += ok;
        ++k;
        named += ok;
        ++tried;
    }
    void finish() {
        for (const auto& [mutation, nk] : tally) WARN(mutation << ": diagnosis names the mutated event in " << nk.first << "/" << nk.second);
        WARN("diagnosis accuracy: " << named << "/" << tried);
        REQUIRE(tried > 0);
        CHECK(named * 10 >= tried * 9);  // >= 90 %
    }
};

// What every mutant replays to, frozen: a change of the replay's structure must leave
// it byte-identical; an intended change of behaviour regenerates it with
//   IRQFLOW_UPDATE_GOLDEN=1 build/tests/irqflow_tests '[mutation-golden]'
// and the diff shows exactly which findings moved.
struct FrozenFindings {
    std::string text;
    void visit(const std::string& name, const Mutation& m, const Trace& base, std::size_t at, const ReplayResult& r) {
        text += "== " + name + ": " + m.name + " at record " + std::to_string(base.events[at].record) + "\n" + describe(r);
    }
    void finish() {
        const std::string golden = std::string(IRQFLOW_GOLDEN) + "/mutants.txt";
        if (std::getenv("IRQFLOW_UPDATE_GOLDEN")) {
            REQUIRE(!kSanitized);  // the golden holds every sample's mutants
            write_file(golden, text);
        }
        CHECK(text == of_swept_samples(read_file(golden)));
    }
    // The golden's mutants of the samples swept here ("== sample: ..." blocks).
    static std::string of_swept_samples(const std::string& all) {
        std::string out;
        bool keep = false;
        for (std::size_t at = 0; at < all.size();) {
            std::size_t end = all.find('\n', at);
            end = end == std::string::npos ? all.size() : end + 1;
            const std::string_view line(all.data() + at, end - at);
            if (line.starts_with("== ")) keep = swept(std::string(line.substr(3, line.find(':') - 3)));
            if (keep) out += line;
            at = end;
        }
        return out;
    }
};

}  // namespace

TEST_CASE("every mutant of a real capture is caught by the expected rule, shows a few root findings, has its mutated event named by the top diagnosis and replays to its frozen findings",
          "[replay][mutation][diagnosis][mutation-golden]") {
    CaughtByExpectedRule caught;
    FewRootFindings roots;
    DiagnosisNamesMutatedEvent diagnosis;
    FrozenFindings frozen;
    for_each_mutant([&](const std::string& name, const Mutation& m, const Trace& base, std::size_t at, const ReplayResult& r) {
        caught.visit(name, m, base, at, r);
        roots.visit(name, m, base, at, r);
        diagnosis.visit(name, m, base, at, r);
        frozen.visit(name, m, base, at, r);
    });
    caught.finish();
    roots.finish();
    diagnosis.finish();
    frozen.finish();
}

// The model as the inspector sees it, frozen at 16 places in every sample (and each
// sample replayed under the 2012 PV EOI semantics): restructuring the model must leave
// every register of every vCPU where it was.
TEST_CASE("the modelled APIC states over every sample match their golden", "[replay][mutation-golden]") {
    auto set_text = [](const VectorSet& s) {
        std::string o;
        for (int v = 255; v >= 0; --v)
            if (s.test(v)) o += (o.empty() ? "" : ",") + std::to_string(v);
        return "{" + o + "}";
    };
    std::string text;
    for (const auto& name : every_dat_sample()) {
        const Trace t = load_trace(sample(name));
        Replayer r(t);
        for (std::size_t k = 1; k <= 16; ++k) {
            const std::size_t at = t.events.size() * k / 16;
            r.step_until(at);
            text += "== " + name + " before event " + std::to_string(at) + "\n";
            for (const auto& s : r.states())
                text += "  vcpu" + std::to_string(s.vcpu.value()) + " irr " + set_text(s.irr) + " isr " + set_text(s.isr) + " tmr " +
                        set_text(s.tmr) + " tpr " + std::to_string(s.tpr) + " pveoi " + std::to_string(s.pv_eoi_enabled) +
                        std::to_string(s.pv_eoi_armed) + " synced " + std::to_string(s.synced) + "\n";
        }
        ReplayOptions o;
        o.semantics = PvEoiSemantics::Original2012;
        text += "== " + name + " under the 2012 semantics\n" + describe(replay::replay(t, o));
    }
    const std::string golden = std::string(IRQFLOW_GOLDEN) + "/states.txt";
    if (std::getenv("IRQFLOW_UPDATE_GOLDEN")) write_file(golden, text);
    CHECK(text == read_file(golden));
}
