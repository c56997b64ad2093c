#include "session_rows.hpp"

#include "guest_rows.hpp"

#include <algorithm>
#include <map>
#include <variant>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/replay/statistics.hpp"

namespace irqflow::storage {
namespace {

using replay::ReplayResult;
using Conflict = TableSink::OnConflict;

// 0..n-1 ordered by key(i), ties in index order. Each key is computed once and sorted
// beside its index: comparing through key() reached into a row scattered in memory on
// every comparison (356 k interrupts on 10 M events: 0.11 s, now 0.04 s).
template <class KeyOf>
std::vector<std::uint32_t> order_by(std::size_t n, KeyOf key) {
    using Key = decltype(key(std::uint32_t{}));
    std::vector<std::pair<Key, std::uint32_t>> keyed;
    keyed.reserve(n);
    for (std::size_t k = 0; k < n; ++k) keyed.emplace_back(key(static_cast<std::uint32_t>(k)), static_cast<std::uint32_t>(k));
    std::sort(keyed.begin(), keyed.end());  // the index breaks ties: stable
    std::vector<std::uint32_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = keyed[k].second;
    return order;
}

std::optional<std::int64_t> opt(std::int64_t v, bool has) { return has ? std::optional<std::int64_t>{v} : std::nullopt; }

void write_replay(TableSink& out, std::int64_t id, const ReplayResult& r) {
    // In the order of their index (interrupts_by_session: session, vcpu, vector): each
    // row's index entry then goes after the last one, which SQLite appends without a
    // search from the root (10 M events: 1.05 s → 0.46 s for their 356 k rows).
    const auto order = order_by(r.interrupts.size(), [&](std::uint32_t k) { return std::pair{r.interrupts[k].vcpu.value(), r.interrupts[k].vector}; });
    out.rows("interrupts",
             {"session", "vm", "vcpu", "vector", "level", "accept_record", "accept_ts_ns", "inject_record", "inject_ts_ns", "eoi_record",
              "eoi_ts_ns", "eoi_path", "nesting_depth", "accept_to_inject_ns", "inject_to_eoi_ns"},
             order.size(), [&](Values& v, std::size_t k) {
                 const auto& i = r.interrupts[order[k]];
                 const bool acc = i.accept_ts != 0, eoi = i.eoi_ts != 0;
                 v.add(id).add(i.vm.value()).add(i.vcpu.value()).add(static_cast<std::int64_t>(i.vector)).add(i.level ? 1 : 0);
                 v.add(opt(static_cast<std::int64_t>(i.accept_record), acc)).add(opt(i.accept_ts, acc));
                 v.add(static_cast<std::int64_t>(i.inject_record)).add(i.inject_ts);
                 v.add(opt(static_cast<std::int64_t>(i.eoi_record), eoi)).add(opt(i.eoi_ts, eoi));
                 if (i.eoi_path) v.add(std::string_view(replay::to_string(*i.eoi_path)));
                 else v.null();
                 v.add(static_cast<std::int64_t>(i.nesting_depth)).add(opt(i.inject_ts - i.accept_ts, acc)).add(opt(i.eoi_ts - i.inject_ts, eoi));
             });
    struct Latency {
        const char* stage;
        std::int64_t vector;
        const replay::Latency* l;
    };
    std::vector<Latency> lat;
    for (const auto& [stage, m] : {std::pair{"accept_to_inject", &r.stats.accept_to_inject}, std::pair{"inject_to_eoi", &r.stats.inject_to_eoi}})
        for (const auto& [vec, l] : *m) lat.push_back({stage, static_cast<std::int64_t>(vec), &l});
    // with the guest's trace, each vector's stages across both sides (the delivery_latency view's)
    if (r.guest)
        for (const auto& [vec, l] : r.guest->latency) {
            const std::pair<const char*, const replay::Latency*> stages[] = {{"guest_accept_to_inject", &l.accept_to_inject},
                                                                             {"guest_inject_to_handler", &l.inject_to_entry},
                                                                             {"guest_handler_run", &l.entry_to_exit},
                                                                             {"guest_handler_to_eoi", &l.entry_to_eoi}};
            for (const auto& [stage, x] : stages)
                if (x->count) lat.push_back({stage, static_cast<std::int64_t>(vec), x});
        }
    out.rows("latency", {"session", "vector", "stage", "samples", "p50_ns", "p90_ns", "p99_ns", "max_ns"}, lat.size(), [&](Values& v, std::size_t k) {
        const auto& x = lat[k];
        v.add(id).add(x.vector).add(std::string_view(x.stage)).add(static_cast<std::int64_t>(x.l->count));
        v.add(static_cast<std::int64_t>(x.l->p50)).add(static_cast<std::int64_t>(x.l->p90)).add(static_cast<std::int64_t>(x.l->p99)).add(static_cast<std::int64_t>(x.l->max));
    });
    // also in index order (ipis_by_fanout: session, kind, vector, destinations, delivered); id keeps the trace order
    const auto by_fanout = order_by(r.ipis.size(), [&](std::uint32_t k) {
        const auto& p = r.ipis[k];
        return std::tuple{std::string_view(replay::to_string(p.kind)), p.vector, p.expected.size(), p.received.size()};
    });
    out.rows("ipis", {"session", "id", "record", "ts_ns", "vm", "sender_vcpu", "kind", "vector", "delivery_mode", "exact", "destinations", "delivered"},
             by_fanout.size(), [&](Values& v, std::size_t k) {
                 const std::size_t n = by_fanout[k];
                 const auto& p = r.ipis[n];
                 v.add(id).add(static_cast<std::int64_t>(n)).add(static_cast<std::int64_t>(p.record)).add(p.ts).add(p.vm.value()).add(p.sender.value());
                 v.add(std::string_view(replay::to_string(p.kind))).add(static_cast<std::int64_t>(p.vector)).add(static_cast<std::int64_t>(p.delivery_mode)).add(p.exact ? 1 : 0);
                 v.add(static_cast<std::int64_t>(p.expected.size())).add(static_cast<std::int64_t>(p.received.size()));
             });
    // what ipi_fanout shows, counted here once (schema 8): by_fanout has each group's IPIs together
    struct FanoutCount {
        std::size_t first;  // an IPI of the group, in by_fanout
        std::int64_t ipis = 0, mismatched = 0;
    };
    std::vector<FanoutCount> fanout;
    auto group = [&](std::size_t k) {
        const auto& p = r.ipis[by_fanout[k]];
        return std::tuple{std::string_view(replay::to_string(p.kind)), p.vector, p.expected.size()};
    };
    for (std::size_t k = 0; k < by_fanout.size(); ++k) {
        if (fanout.empty() || group(fanout.back().first) != group(k)) fanout.push_back({k});
        const auto& p = r.ipis[by_fanout[k]];
        ++fanout.back().ipis;
        fanout.back().mismatched += p.received.size() != p.expected.size();
    }
    out.rows("ipi_counts", {"session", "kind", "vector", "destinations", "ipis", "mismatched"}, fanout.size(), [&](Values& v, std::size_t k) {
        const auto [kind, vector, destinations] = group(fanout[k].first);
        v.add(id).add(kind).add(static_cast<std::int64_t>(vector)).add(static_cast<std::int64_t>(destinations)).add(fanout[k].ipis).add(fanout[k].mismatched);
    });
    struct Destination {
        std::int64_t ipi;
        std::uint32_t apic;
        bool expected, received;
    };
    std::vector<Destination> dests;
    for (std::size_t n = 0; n < r.ipis.size(); ++n) {
        std::map<std::uint32_t, std::pair<bool, bool>> d;
        for (auto a : r.ipis[n].expected) d[a].first = true;
        for (auto a : r.ipis[n].received) d[a].second = true;
        for (const auto& [apic, er] : d) dests.push_back({static_cast<std::int64_t>(n), apic, er.first, er.second});
    }
    out.rows("ipi_destinations", {"session", "ipi", "apic_id", "expected", "received"}, dests.size(), [&](Values& v, std::size_t k) {
        const auto& x = dests[k];
        v.add(id).add(x.ipi).add(static_cast<std::int64_t>(x.apic)).add(x.expected ? 1 : 0).add(x.received ? 1 : 0);
    });
    // a finding's id is its index in the replay's findings: caused_by names the root's
    out.rows("findings", {"session", "id", "rule", "severity", "vm", "vcpu", "ts_ns", "record", "expected", "observed", "caused_by", "resync", "guest_record"},
             r.findings.size(), [&](Values& v, std::size_t n) {
                 const auto& x = r.findings[n];
                 const auto& info = replay::rule_info(x.rule);
                 v.add(id).add(static_cast<std::int64_t>(n)).add(std::string_view(info.id)).add(std::string_view(replay::to_string(info.severity)));
                 v.add(x.vm.value()).add(x.vcpu.value()).add(x.ts.value()).add(static_cast<std::int64_t>(x.record));
                 v.add(std::string_view(x.expected)).add(std::string_view(x.observed));
                 v.add(x.caused_by ? std::optional<std::int64_t>(static_cast<std::int64_t>(*x.caused_by)) : std::nullopt);
                 if (x.resync.empty()) v.null();
                 else v.add(std::string_view(x.resync));
                 v.add(x.guest_record ? std::optional<std::int64_t>(static_cast<std::int64_t>(*x.guest_record)) : std::nullopt);
             });
    struct Link {
        std::int64_t finding, ord;
        const std::pair<std::uint64_t, std::string>* step;
    };
    std::vector<Link> chain;
    for (std::size_t n = 0; n < r.findings.size(); ++n) {
        std::int64_t ord = 0;
        for (const auto& step : r.findings[n].chain) chain.push_back({static_cast<std::int64_t>(n), ord++, &step});
    }
    out.rows("finding_chain", {"session", "finding", "ord", "record", "what"}, chain.size(), [&](Values& v, std::size_t k) {
        const auto& c = chain[k];
        v.add(id).add(c.finding).add(c.ord).add(static_cast<std::int64_t>(c.step->first)).add(std::string_view(c.step->second));
    });
    // every statistic the list stores (replay/include/irqflow/replay/statistics.hpp)
    std::vector<std::pair<std::string, double>> stats;
    const auto list = replay::statistics();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!(list[i].outputs & replay::kDatabase)) continue;
        const std::string key = replay::stat_db_key(list[i]);
        const auto val = replay::stat_value(r, i);
        if (const auto* count = std::get_if<std::uint64_t>(&val)) stats.emplace_back(key, static_cast<double>(*count));
        else if (const auto* x = std::get_if<double>(&val)) stats.emplace_back(key, *x);
        else if (const auto* m = std::get_if<const std::map<std::string, std::uint64_t>*>(&val))
            for (const auto& [name, times] : **m) stats.emplace_back(key + "_" + name, static_cast<double>(times));
    }
    out.rows("stats", {"session", "key", "value"}, stats.size(), [&](Values& v, std::size_t k) {
        v.add(id).add(std::string_view(stats[k].first)).add(stats[k].second);
    });
}

}  // namespace

void write_session_rows(TableSink& out, std::int64_t id, const Trace& t, const SessionMeta& meta, const ExitTimes& exits,
                        const ReplayResult& r, const SerialLog* serial, const GuestSide* guest) {
    out.rows("event_names", {"session", "id", "name"}, t.name_count(), [&](Values& v, std::size_t i) {
        v.add(id).add(static_cast<std::int64_t>(i)).add(std::string_view(t.name(static_cast<std::uint16_t>(i))));
    });
    // which f-column of the events view holds which field, per event name
    std::vector<std::pair<std::string_view, std::size_t>> fields;  // (kind name, slot)
    std::vector<std::string_view> field_names;
    for (const auto& k : all_kinds())
        for (std::size_t i = 0; i < k.nfields; ++i) {
            fields.emplace_back(k.name, i);
            field_names.push_back(k.fields[i]);
        }
    out.rows("field_names", {"name", "slot", "field"}, fields.size(), [&](Values& v, std::size_t i) {
        v.add(fields[i].first).add(static_cast<std::int64_t>(fields[i].second)).add(field_names[i]);
    }, Conflict::Ignore);
    const auto reasons = exits.reasons();
    out.rows("exit_reasons", {"isa", "reason", "name", "halted"}, reasons.size(), [&](Values& v, std::size_t i) {
        const auto [isa, code] = reasons[i];
        const auto c = code >= 0 ? std::optional<std::int64_t>{code} : std::nullopt;
        v.add(isa).add(code).add(std::string_view(exit_reason_key(c, isa))).add(c && exit_class(*c, isa) == ExitClass::Hlt ? 1 : 0);
    }, Conflict::Ignore);
    const auto counts = exits.counts();
    std::vector<const decltype(counts)::value_type*> count_rows;
    for (const auto& c : counts) count_rows.push_back(&c);
    out.rows("exit_counts", {"session", "vm", "vcpu", "reason_name", "exits"}, count_rows.size(), [&](Values& v, std::size_t i) {
        const auto& [key, n] = *count_rows[i];
        v.add(id).add(std::get<0>(key)).add(std::get<1>(key)).add(std::string_view(std::get<2>(key))).add(n);
    });
    std::vector<std::pair<VmId, const VcpuInfo*>> vcpus;
    for (const auto& vm : t.vms)
        for (const auto& c : vm.vcpus) vcpus.emplace_back(vm.id, &c);
    out.rows("vcpus", {"session", "vm", "vcpu", "tid", "apic_id", "apic_id_from_trace"}, vcpus.size(), [&](Values& v, std::size_t i) {
        const auto& [vm, c] = vcpus[i];
        v.add(id).add(vm.value()).add(c->id.value()).add(c->tid.value()).add(static_cast<std::int64_t>(c->apic.value())).add(c->apic_from_trace ? 1 : 0);
    });
    if (serial)
        out.rows("serial_lines", {"session", "line", "ts_ns", "alignment", "text"}, serial->lines.size(), [&](Values& v, std::size_t i) {
            const auto& l = serial->lines[i];
            v.add(id).add(static_cast<std::int64_t>(l.line)).add(l.host_ts ? std::optional<std::int64_t>{l.host_ts->value()} : std::nullopt);
            v.add(std::string_view(to_string(l.alignment))).add(std::string_view(l.text));
        });
    out.rows("session_tags", {"session", "key", "value"}, meta.tags.size(), [&](Values& v, std::size_t i) {
        v.add(id).add(std::string_view(meta.tags[i].first)).add(std::string_view(meta.tags[i].second));
    });
    write_replay(out, id, r);
    if (guest) write_guest_rows(out, id, *guest);
    // what session_rates adds up, from the rows just written
    std::int64_t injections = 0, eois = 0, pv_eois = 0;
    for (const auto& i : r.interrupts) {
        injections += i.inject_ts != 0;
        eois += i.eoi_path.has_value();
        pv_eois += i.eoi_path && std::string_view(replay::to_string(*i.eoi_path)) == "pv-eoi";
    }
    out.rows("session_totals", {"session", "exits", "guest_ns", "interrupts", "injections", "eois", "pv_eois"}, 1, [&](Values& v, std::size_t) {
        v.add(id).add(exits.exits()).add(exits.guest_ns()).add(static_cast<std::int64_t>(r.interrupts.size())).add(injections).add(eois).add(pv_eois);
    });
}

}  // namespace irqflow::storage
