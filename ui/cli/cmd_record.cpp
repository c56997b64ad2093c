#include <iostream>

#include "args.hpp"
#include "irqflow/capture/recorder.h"

namespace irqflow::cli {

int cmd_record(Args& a) {
    auto out = a.value("-o");
    auto duration = a.number("--duration");
    auto pid = a.integer("--pid");
    auto buffer = a.integer("--buffer-kb");
    auto cmd = a.after_dashes();
    auto pos = a.positionals();
    if (!out) throw UsageError("needs -o OUT.dat");
    if (!pos.empty()) throw UsageError("unexpected argument " + pos[0]);
    if (!duration && cmd.empty()) throw UsageError("needs --duration S and/or -- CMD");
    std::vector<char*> argv;
    for (auto& s : cmd) argv.push_back(s.data());
    argv.push_back(nullptr);
    irqflow_record_opts o{out->c_str(), duration.value_or(0), static_cast<int>(pid.value_or(0)),
                          cmd.empty() ? nullptr : argv.data(), static_cast<int>(buffer.value_or(0))};
    irqflow_record_result r{};
    char err[512] = {};
    int st = irqflow_record(&o, &r, err, sizeof err);
    if (st != IRQFLOW_RECORD_OK) {
        std::cerr << "irqflow record: " << err << "\n";
        return st == IRQFLOW_RECORD_UNAVAILABLE ? kExitBadInput : 1;
    }
    std::cerr << "irqflow record: wrote " << *out << " (" << r.cpus << " CPUs";
    if (r.overrun) std::cerr << ", kernel dropped " << r.overrun << " events";
    std::cerr << ")\n";
    return kExitOk;
}

}  // namespace irqflow::cli
