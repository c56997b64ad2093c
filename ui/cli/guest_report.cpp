#include "guest_report.hpp"

#include <cstdio>
#include <set>

#include "args.hpp"
#include "irqflow/capture/error.hpp"

namespace irqflow::cli {
using ui::Json;

namespace {

// Rounded down: 13267 of 13271 is 99.9 %, never 100.0 %.
std::string percent(std::uint64_t part, std::uint64_t whole) {
    char b[32];
    const std::uint64_t tenths = whole ? part * 1000 / whole : 0;
    std::snprintf(b, sizeof b, "%llu.%llu%%", static_cast<unsigned long long>(tenths / 10), static_cast<unsigned long long>(tenths % 10));
    return b;
}

std::string cells(const replay::Latency& l) {
    char b[64];
    if (!l.count) std::snprintf(b, sizeof b, "%7s %8s %8s", "0", "-", "-");
    else std::snprintf(b, sizeof b, "%7llu %8.1f %8.1f", static_cast<unsigned long long>(l.count), static_cast<double>(l.p50) / 1e3,
                       static_cast<double>(l.p99) / 1e3);
    return b;
}

Json latency_json(const replay::Latency& l) {
    return Json{{"n", l.count}, {"p50_ns", l.p50}, {"p90_ns", l.p90}, {"p99_ns", l.p99}, {"max_ns", l.max}};
}

}  // namespace

void print_guest_report(const GuestReport& g) {
    const auto& m = g.match;
    std::printf("\nguest %s: %s\n", g.shown.c_str(), g.clock.detail.c_str());
    std::printf("guest handlers: %llu/%llu (%s) injections reached their vector's handler in the guest",
                static_cast<unsigned long long>(m.matched), static_cast<unsigned long long>(m.injections), percent(m.matched, m.injections).c_str());
    std::printf("; %llu did not (GUEST-INJECTION-UNHANDLED)", static_cast<unsigned long long>(m.unhandled));
    std::printf("\n  %llu/%llu handler entries explained by a delivery waiting on their vCPU", static_cast<unsigned long long>(m.explained),
                static_cast<unsigned long long>(m.handlers));
    if (m.explained_by_accept) std::printf(" (%llu by an accept alone: the trace shows no injection on that vCPU)", static_cast<unsigned long long>(m.explained_by_accept));
    std::printf("; %llu not (GUEST-HANDLER-UNEXPLAINED)", static_cast<unsigned long long>(m.unexplained));
    if (m.handlers_not_judged)
        std::printf(", %llu not judged (the host's trace lost events since their vector's last delivery, or may have begun after it)", static_cast<unsigned long long>(m.handlers_not_judged));
    if (m.unmapped) std::printf("; %llu device handlers of IRQs with no vector in the guest trace", static_cast<unsigned long long>(m.unmapped));
    if (m.silent)
        std::printf("\n  not judged: %llu injections with nothing in the guest's trace on their vCPU until the vector's next injection "
                    "(a hole in it; the host saw %llu of their EOIs)",
                    static_cast<unsigned long long>(m.silent), static_cast<unsigned long long>(m.silent_eoied));
    if (m.untraced) {
        std::printf("\n  not judged: %llu injections of vectors the guest's trace has no handler event for (", static_cast<unsigned long long>(m.untraced));
        const char* sep = "";
        for (int v : m.untraced_vectors) {
            std::printf("%s0x%02x", sep, v);
            sep = ", ";
        }
        std::printf(")");
    }
    std::printf("\n  EOI before the handler %llu, inside it %llu, after it %llu\n", static_cast<unsigned long long>(m.eoi_before_handler),
                static_cast<unsigned long long>(m.eoi_inside_handler), static_cast<unsigned long long>(m.eoi_after_handler));
    print_guest_latency(m);
}

void print_guest_latency(const replay::GuestMatch& m) {
    if (m.latency.empty()) return;
    std::printf("\nlatency (µs)  %-24s  %-24s  %-24s  %s\n", "accept → inject", "inject → handler", "handler run", "handler → EOI");
    std::printf("  vector %7s %8s %8s  %7s %8s %8s  %7s %8s %8s  %7s %8s %8s\n", "n", "p50", "p99", "n", "p50", "p99", "n", "p50", "p99", "n",
                "p50", "p99");
    for (const auto& [v, l] : m.latency)
        std::printf("    0x%02x %s  %s  %s  %s\n", v, cells(l.accept_to_inject).c_str(), cells(l.inject_to_entry).c_str(),
                    cells(l.entry_to_exit).c_str(), cells(l.entry_to_eoi).c_str());
}

Json guest_report_json(const GuestReport& g) {
    const auto& m = g.match;
    Json lat = Json::object();
    for (const auto& [v, l] : m.latency) {
        char key[8];
        std::snprintf(key, sizeof key, "0x%02x", v);
        lat[key] = {{"accept_to_inject", latency_json(l.accept_to_inject)},
                    {"inject_to_handler", latency_json(l.inject_to_entry)},
                    {"handler_run", latency_json(l.entry_to_exit)},
                    {"handler_to_eoi", latency_json(l.entry_to_eoi)}};
    }
    return Json{{"trace", g.shown},
                {"alignment", g.clock.detail},
                {"alignment_method", g.clock.method == GuestClock::Method::Tsc ? "tsc" : "guest-time"},
                {"alignment_bound_ns", g.clock.bound_ns},
                {"injections", m.injections},
                {"matched", m.matched},
                {"unhandled", m.unhandled},
                {"silent", m.silent},
                {"silent_eoied", m.silent_eoied},
                {"handlers", m.handlers},
                {"explained", m.explained},
                {"explained_by_accept", m.explained_by_accept},
                {"unexplained", m.unexplained},
                {"handlers_not_judged", m.handlers_not_judged},
                {"unmapped", m.unmapped},
                {"untraced", m.untraced},
                {"untraced_vectors", m.untraced_vectors},
                {"eoi_before_handler", m.eoi_before_handler},
                {"eoi_inside_handler", m.eoi_inside_handler},
                {"eoi_after_handler", m.eoi_after_handler},
                {"latency", std::move(lat)}};
}

}  // namespace irqflow::cli
