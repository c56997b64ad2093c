// irqflow: record, inspect, check and store KVM interrupt flows (README.md, "Using it").
#include <cstring>
#include <iostream>

#include "args.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/storage/database.hpp"

namespace {

const char* kUsage =
    "usage: irqflow <command> [options]\n"
    "\n"
    "  events TRACE [--serial LOG] [--vcpu N] [--kind NAME] [--json]\n"
    "      print the normalized event stream (trace.dat, trace-cmd report text or perf script text)\n"
    "  stats TRACE [--json]\n"
    "      counts per event name, per vCPU, exits per reason, lost events\n"
    "  check TRACE [--serial LOG] [--json] [--semantics auto|2012|current]\n"
    "      replay the local APICs, PV EOI and IPIs; exit 1 on divergences or liveness failures\n"
    "  predict TRACE [--json]\n"
    "      exits PV EOI / PV IPI would save (captures with them off) or did save (on)\n"
    "  import TRACE [--serial LOG] --db FILE [--name NAME] [--semantics ...]\n"
    "      store the session (events + replay results) in a SQLite file\n"
    "  sessions --db FILE [--json]      list stored sessions\n"
    "  query --db FILE \"SQL\" [--csv|--json] [--limit ROWS] [--timeout SECONDS]\n"
    "      run one read-only SQL statement; rows are printed as they come\n"
    "  rm --db FILE SESSION             remove a session (id or name)\n"
    "  record -o OUT.dat [--duration S] [--pid QEMU_PID] [--buffer-kb N] [-- CMD ...]\n"
    "      record kvm tracepoints live into a trace.dat (root; private tracefs instance)\n"
    "\n"
    "exit codes: 0 ok, 1 findings (check), 2 bad input or recording unavailable, 64 usage error\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace irqflow::cli;
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        std::cout << kUsage;
        return argc < 2 ? kExitUsage : kExitOk;
    }
    std::string cmd = argv[1];
    Args args(std::vector<std::string>(argv + 2, argv + argc));
    try {
        if (cmd == "events") return cmd_events(args);
        if (cmd == "stats") return cmd_stats(args);
        if (cmd == "record") return cmd_record(args);
        if (cmd == "check") return cmd_check(args);
        if (cmd == "predict") return cmd_predict(args);
        if (cmd == "import") return cmd_import(args);
        if (cmd == "sessions") return cmd_sessions(args);
        if (cmd == "query") return cmd_query(args);
        if (cmd == "rm") return cmd_rm(args);
        std::cerr << "irqflow: unknown command \"" << cmd << "\"\n" << kUsage;
        return kExitUsage;
    } catch (const UsageError& e) {
        std::cerr << "irqflow " << cmd << ": " << e.what() << "\n";
        return kExitUsage;
    } catch (const irqflow::storage::StorageError& e) {
        std::cerr << "irqflow: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const irqflow::InputError& e) {
        std::cerr << "irqflow: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "irqflow: out of memory\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "irqflow: " << e.what() << "\n";
        return kExitBadInput;
    }
}
