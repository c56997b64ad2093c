// irqflow: record, inspect, check and store KVM interrupt flows (README.md, "Using it").
// The commands and their options are CLI11 subcommands declared next to the code that
// runs them (cmd_*.cpp); this file parses, picks the one given and maps errors to the
// exit codes of args.hpp.
#include <iostream>

#include "args.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/storage/database.hpp"

namespace {

using namespace irqflow::cli;

// `irqflow help [CMD]`: the same text as `irqflow [CMD] --help`.
void add_help(CLI::App& app, Commands& out) {
    auto topic = std::make_shared<std::string>();
    auto* c = app.add_subcommand("help", "this help, or a command's: irqflow help CMD");
    c->add_option("CMD", *topic, "a command");
    out.emplace_back(c, [&app, topic] {
        if (topic->empty()) {
            std::cout << app.help();
            return kExitOk;
        }
        for (auto* sub : app.get_subcommands({}))
            if (sub->get_name() == *topic) {
                std::cout << sub->help("irqflow");
                return kExitOk;
            }
        std::cerr << "irqflow help: no command \"" << *topic << "\"\n";
        return kExitUsage;
    });
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"irqflow: a record-replay debugger for interrupt flows in KVM virtual machines.\n"
                 "Reads KVM tracepoints (trace.dat, trace-cmd report or perf script text), replays them through a model\n"
                 "of each vCPU's local APIC, PV EOI and IPIs, and stores sessions in SQLite.",
                 "irqflow"};
    app.set_version_flag("--version", "irqflow " IRQFLOW_VERSION);
    app.require_subcommand(1);
    app.footer("\nExit codes: 0 ok, 1 findings (check), 2 bad input or recording unavailable, 64 usage error,\n"
               "127 the command given to record cannot be run.\n"
               "Run `irqflow CMD --help` (or `irqflow help CMD`) for a command's options and examples.");
    Commands commands;
#define IRQFLOW_COMMAND(name) add_##name(app, commands);
#include "commands.def"
#undef IRQFLOW_COMMAND
    add_help(app, commands);
    std::string cmd;
    try {
        if (argc < 2) {  // no command: the overview, as a usage error
            std::cerr << app.help();
            return kExitUsage;
        }
        // A first word that is no command: say so, with the list (CLI11 would only say
        // that a subcommand is required).
        if (const std::string first = argv[1]; !first.empty() && first[0] != '-') {
            std::string names;
            bool known = false;
            for (auto* sub : app.get_subcommands({})) {
                known = known || sub->get_name() == first;
                names += (names.empty() ? "" : ", ") + sub->get_name();
            }
            if (!known) {
                std::cerr << "irqflow: unknown command '" << first << "'; the commands: " << names
                          << "\nRun `irqflow --help` for what each does.\n";
                return kExitUsage;
            }
        }
        app.parse(argc, argv);
        for (auto& [sub, run] : commands)
            if (sub->parsed()) {
                cmd = sub->get_name();
                return run();
            }
        return kExitUsage;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // "irqflow check: --semantics: 2013 not in {2012,auto,current}", and where to look
        std::string where = "irqflow";
        for (auto* sub : app.get_subcommands()) where += " " + sub->get_name();
        std::cerr << where << ": " << e.what() << "\nRun `" << where << " --help` for the options.\n";
        return kExitUsage;
    } catch (const UsageError& e) {
        std::cerr << "irqflow " << cmd << ": " << e.what() << "\n";
        return kExitUsage;
    } catch (const irqflow::storage::StorageError& e) {
        std::cerr << "irqflow: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const irqflow::InputError& e) {  // named as the user gave it (a pipe: <stdin>)
        std::cerr << "irqflow: " << e.with_file(shown_name(e.file())).what() << "\n";
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "irqflow: out of memory\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "irqflow: " << e.what() << "\n";
        return kExitBadInput;
    }
}
