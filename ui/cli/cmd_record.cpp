#include <csignal>
#include <iostream>

#include "args.hpp"
#include "irqflow/capture/recorder.h"

namespace irqflow::cli {

namespace {

struct RecordOptions {
    std::string out;
    double duration = 0;
    int pid = 0, buffer_kb = 0;
    std::vector<std::string> command;
};

int record(RecordOptions& a) {
    if (a.duration <= 0 && a.command.empty()) throw UsageError("needs --duration SECONDS and/or -- CMD");
    const std::string* out = &a.out;
    const auto& cmd = a.command;
    std::vector<char*> argv;
    for (auto& s : a.command) argv.push_back(s.data());
    argv.push_back(nullptr);
    irqflow_record_opts o{a.out.c_str(), a.duration, a.pid, cmd.empty() ? nullptr : argv.data(), a.buffer_kb};
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

}  // namespace

void add_record(CLI::App& app, Commands& out) {
    auto a = std::make_shared<RecordOptions>();
    auto* c = app.add_subcommand("record",
                                 "record kvm tracepoints live into a trace.dat (root; a private tracefs instance, never the "
                                 "top-level buffer); Ctrl-C stops it and writes the file");
    c->add_option("-o,--output", a->out, "the trace.dat to write (v6, opens in trace-cmd report and KernelShark)")
        ->type_name("OUT.dat")
        ->required();
    c->add_option("--duration", a->duration, "stop after this many seconds (default: when CMD exits)")
        ->type_name("SECONDS")
        ->check(CLI::PositiveNumber);
    c->add_option("--pid", a->pid, "trace only this process's threads, e.g. a running QEMU")->type_name("PID")->check(CLI::PositiveNumber);
    c->add_option("--buffer-kb", a->buffer_kb, "ring buffer per host CPU (default 8192)")->type_name("KiB")->check(CLI::Range(64, 4 << 20));
    c->add_option("CMD", a->command, "after --: a command to start and trace with the threads it creates (e.g. QEMU)");
    c->footer(examples({"irqflow record -o vm.dat --duration 10 --pid $(pgrep -f qemu-system)",
                        "irqflow record -o boot.dat -- qemu-system-x86_64 -enable-kvm -m 2G disk.img"}));
    out.emplace_back(c, [a] { return record(*a); });
}

}  // namespace irqflow::cli
