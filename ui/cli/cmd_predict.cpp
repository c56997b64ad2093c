// irqflow predict: from a capture with PV EOI and/or PV IPI off, how many exits each
// feature would have saved (replay/README.md, "Counterfactuals"); with the feature on, what it did save.
#include <cstdio>
#include <iostream>

#include "args.hpp"
#include "json.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {

namespace {

int run(const std::string& trace, bool json) {
    const std::string path = readable_trace(trace);
    const auto r = pipeline::check({path, {}, {}}, {}).result;  // streamed: memory per vCPU and vector, not per event
    const auto& s = r.stats;
    const bool pv_eoi_on = s.pv_eois > 0;
    const bool pv_ipi_on = s.pv_ipi_hypercalls > 0;
    const auto real_eois = s.real_eois();
    const auto exit_eois = real_eois - s.pv_eois;
    if (json) {
        const double predicted_rate =
            real_eois ? static_cast<double>(s.predicted_pv_eoi_saved + s.pv_eois) / static_cast<double>(real_eois) : 0.0;
        Json j;
        j["exits"] = s.exits;
        j["pv_eoi"] = {{"on_in_capture", pv_eoi_on},
                       {"eois", real_eois},
                       {"measured_exits_saved", s.exits_saved_pv_eoi},
                       {"predicted_exits_saved", s.predicted_pv_eoi_saved},
                       {"predicted_hit_rate", predicted_rate},
                       {"measured_hit_rate", s.pv_eoi_hit_rate}};
        j["pv_ipi"] = {{"on_in_capture", pv_ipi_on},
                       {"hypercalls", s.pv_ipi_hypercalls},
                       {"measured_exits_saved", s.exits_saved_pv_ipi},
                       {"icr_writes", s.icr_ipis},
                       {"multi_destination_sends", s.icr_sends_multi},
                       {"predicted_exits_saved", s.predicted_pv_ipi_saved}};
        std::cout << json_text(j) << '\n';
        return kExitOk;
    }
    std::printf("%s: %llu exits, %llu EOIs of an in-service vector\n", shown_name(path).c_str(),
                static_cast<unsigned long long>(s.exits), static_cast<unsigned long long>(real_eois));
    std::printf("PV EOI %s in this capture: %llu EOIs took the PV path (%llu exits saved)\n", pv_eoi_on ? "was on" : "was off",
                static_cast<unsigned long long>(s.pv_eois), static_cast<unsigned long long>(s.exits_saved_pv_eoi));
    std::printf("  of the %llu EOIs that exited, %llu came while the arming rule would have armed PV EOI:\n"
                "  predicted exits saved by %sPV EOI: %llu (hit rate %.1f%%)\n",
                static_cast<unsigned long long>(exit_eois), static_cast<unsigned long long>(s.predicted_pv_eoi_saved),
                pv_eoi_on ? "more " : "", static_cast<unsigned long long>(s.predicted_pv_eoi_saved),
                real_eois ? 100.0 * static_cast<double>(s.predicted_pv_eoi_saved + s.pv_eois) / static_cast<double>(real_eois) : 0.0);
    std::printf("PV IPI %s in this capture: %llu hypercalls (%llu exits saved)\n", pv_ipi_on ? "was on" : "was off",
                static_cast<unsigned long long>(s.pv_ipi_hypercalls), static_cast<unsigned long long>(s.exits_saved_pv_ipi));
    std::printf("  %llu ICR writes, %llu multi-destination sends: predicted exits saved by %sPV IPI: %llu\n",
                static_cast<unsigned long long>(s.icr_ipis), static_cast<unsigned long long>(s.icr_sends_multi),
                pv_ipi_on ? "more " : "", static_cast<unsigned long long>(s.predicted_pv_ipi_saved));
    return kExitOk;
}

}  // namespace

void add_predict(CLI::App& app, Commands& out) {
    struct Options {
        std::string trace;
        bool json = false;
    };
    auto a = std::make_shared<Options>();
    auto* c = app.add_subcommand("predict",
                                 "exits PV EOI / PV IPI would save (a capture with them off) or did save (with them on)");
    add_trace(*c, a->trace);
    c->add_flag("--json", a->json, "one JSON document");
    c->footer(examples({"irqflow predict samples/pveoi-off.dat", "irqflow predict samples/pvipi-off.dat --json"}));
    out.emplace_back(c, [a] { return run(a->trace, a->json); });
}

}  // namespace irqflow::cli
