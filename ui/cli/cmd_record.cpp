#include <csignal>
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
    const int st = irqflow_record(&o, &r, err, sizeof err);
    if (st != IRQFLOW_RECORD_OK) {
        std::cerr << "irqflow record: " << err << "\n";
        return st == IRQFLOW_RECORD_NO_COMMAND ? kExitCannotRun : kExitBadInput;
    }
    unsigned long long recorded = 0;
    for (int c = 0; r.per_cpu && c < r.cpus; ++c) recorded += r.per_cpu[c].recorded;
    if (r.stopped_by) std::cerr << "irqflow record: stopped by " << (r.stopped_by == SIGINT ? "SIGINT" : "SIGTERM") << "\n";
    std::cerr << "irqflow record: wrote " << *out << ": " << recorded << " events from " << r.cpus << " CPUs, " << r.overrun
              << " lost\n";
    for (int c = 0; r.per_cpu && c < r.cpus; ++c) {
        const auto& p = r.per_cpu[c];
        std::cerr << "  CPU " << c << ": " << p.recorded << " recorded, " << p.overrun + p.dropped << " lost (" << p.overrun
                  << " overwritten, " << p.dropped << " dropped)\n";
    }
    if (r.command_stopped) std::cerr << "irqflow record: " << cmd[0] << " still ran when the recording ended: sent it SIGTERM\n";
    else if (r.command_status > 0) std::cerr << "irqflow record: " << cmd[0] << " exited with status " << r.command_status << "\n";
    irqflow_record_free(&r);
    return kExitOk;
}

}  // namespace irqflow::cli
