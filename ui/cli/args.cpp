#include "args.hpp"

#include <filesystem>

namespace irqflow::cli {

CLI::Option* add_trace(CLI::App& c, std::string& path) {
    return c.add_option("TRACE", path,
                        "the capture: a trace.dat (v6 or v7), `trace-cmd report` text or `perf script` text "
                        "(pasted excerpts too)")
        ->required();
}

CLI::Option* add_serial(CLI::App& c, std::string& path) {
    return c.add_option("--serial", path, "the guest's serial console log of the same run, aligned onto the trace's clock")
        ->type_name("LOG");
}

CLI::Option* add_semantics(CLI::App& c, replay::PvEoiSemantics& s) {
    std::vector<std::string> names;  // spelled as replay spells them
    for (auto v : {replay::PvEoiSemantics::Auto, replay::PvEoiSemantics::Original2012, replay::PvEoiSemantics::Current})
        names.emplace_back(replay::to_string(v));
    return c.add_option_function<std::string>(
                "--semantics", [&s](const std::string& v) { s = *replay::parse_semantics(v); },
                "how the host arms PV EOI: 2012 (the first patches), current (today's KVM) or auto (whichever the "
                "trace shows; the default)")
        ->type_name("RULE")
        ->check(CLI::IsMember(names));
}

CLI::Option* add_db(CLI::App& c, std::string& path, bool must_exist) {
    auto* o = c.add_option("--db", path, "the SQLite file of stored sessions")->type_name("FILE")->required();
    if (must_exist)  // a typo must not create an empty database
        o->check(CLI::Validator(
            [](const std::string& p) {
                return std::filesystem::exists(p) ? std::string() : "no database " + p + " (irqflow import creates one)";
            },
            "", "an existing database"));
    return o;
}

std::string examples(std::initializer_list<const char*> lines) {
    std::string s = "\nExamples:\n";
    for (const char* l : lines) s += std::string("  ") + l + "\n";
    return s;
}

}  // namespace irqflow::cli
