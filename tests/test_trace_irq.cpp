// irqflow trace-irq: one vector followed end to end, on a real capture and on a pasted,
// wrapped excerpt of it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "helpers.hpp"
#include "mail_wrap.hpp"

using namespace irqflow::test;

namespace {

std::vector<nlohmann::json> json_lines(const std::string& out) {
    std::vector<nlohmann::json> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) v.push_back(nlohmann::json::parse(line));
    return v;
}

std::string us1(std::int64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", static_cast<double>(ns) / 1e3);
    return b;
}

}  // namespace

TEST_CASE("trace-irq follows each IPI of a vector to every destination and agrees with check's latencies", "[cli][trace-irq][samples]") {
    const std::string dat = "'" + sample("pveoi-on.dat") + "'";
    const auto chains = json_lines(run(cli() + " trace-irq " + dat + " --vector 0xfc --json").out);
    REQUIRE(chains.size() > 100);
    std::size_t destinations = 0, delivered = 0, all_but_self = 0;
    for (const auto& c : chains) {
        REQUIRE(!c["ipi"].is_null());  // 0xfc (call function) only comes by IPI here
        const std::uint64_t sent = c["ipi"]["record"];
        CHECK(!c["destinations"].empty());
        all_but_self += c["destinations"].size() == 3;  // on 4 vCPUs
        for (const auto& d : c["destinations"]) {
            ++destinations;
            CHECK(d["vcpu"] != c["ipi"]["sender"]);
            CHECK(d["apic_id"] == d["vcpu"]);  // KVM's default numbering in this capture
            if (!d["delivered"]) continue;
            ++delivered;
            const std::uint64_t accepted = d["accept"]["record"], injected = d["inject"]["record"], eoi = d["eoi"]["record"];
            CHECK(sent < accepted);
            CHECK(accepted < injected);
            CHECK(injected < eoi);
            CHECK(d["latency"]["inject_to_eoi_ns"] == d["eoi"]["ts_ns"].get<std::int64_t>() - d["inject"]["ts_ns"].get<std::int64_t>());
        }
    }
    CHECK(delivered * 100 >= destinations * 99);
    CHECK(all_but_self * 10 >= chains.size() * 9);

    // the summary's percentiles are check's, to the printed digit
    const auto check = nlohmann::json::parse(run(cli() + " check --json " + dat).out)["summary"];
    const auto text = run(cli() + " trace-irq " + dat + " --vector 0xfd").out;
    const auto& a2i = check["accept_to_inject"]["0xfd"];
    const auto& i2e = check["inject_to_eoi"]["0xfd"];
    CHECK(text.find("142 interrupts, 142 IPIs\n") != std::string::npos);
    const auto row = [&](const std::string& stage) {  // the summary row's numbers
        const std::size_t at = text.find("\n  " + stage + " ");
        REQUIRE(at != std::string::npos);
        std::istringstream w(text.substr(at + 3 + stage.size(), text.find('\n', at + 1) - at - 3 - stage.size()));
        std::vector<std::string> v;
        for (std::string x; w >> x;) v.push_back(x);
        return v;
    };
    CHECK(row("accept → inject") == std::vector<std::string>{"142", us1(a2i["p50_ns"]), us1(a2i["p90_ns"]), us1(a2i["p99_ns"]), us1(a2i["max_ns"])});
    CHECK(row("inject → EOI") == std::vector<std::string>{"142", us1(i2e["p50_ns"]), us1(i2e["p90_ns"]), us1(i2e["p99_ns"]), us1(i2e["max_ns"])});

    // --vcpu 1: its own destinations, and every destination of an IPI it sent
    const auto one = run(cli() + " trace-irq " + dat + " --vector 0xfd --vcpu 1").out;
    std::istringstream in(one);
    std::string sender;
    std::size_t rows = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.find(" sends IPI ") != std::string::npos) sender = line.substr(line.find(" vm0/") + 1, 9);
        if (line.rfind("    vcpu", 0) != 0) continue;
        ++rows;
        CHECK((line.rfind("    vcpu1:", 0) == 0 || sender == "vm0/vcpu1"));
    }
    CHECK(rows > 30);

    // usage errors name what is valid
    auto r = run(cli() + " trace-irq " + dat, true);
    CHECK(r.status == 64);
    CHECK(r.out.find("--vector is required") != std::string::npos);
    r = run(cli() + " trace-irq " + dat + " --vector 0x100", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("a vector is 0..255") != std::string::npos);
    r = run(cli() + " trace-irq " + dat + " --vector 0xfd --vcpu 9", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("has vCPUs 0, 1, 2, 3") != std::string::npos);
}

TEST_CASE("trace-irq on a pasted excerpt: chains cite input lines, survive mail wrapping and show where an IPI was lost", "[cli][trace-irq][text]") {
    // three call-function broadcasts of the real capture, cut inside a line at both ends,
    // with a person's note and a vCPU 3 EOI taken out
    const std::string report = run("trace-cmd report '" + sample("pveoi-on.dat") + "' | sed -n 27640,27822p").out;
    std::string excerpt = "Three smp_call_function rounds right before the hang:\n" + report.substr(report.find(": ") + 2);
    excerpt = excerpt.substr(0, excerpt.rfind('\n', excerpt.size() - 2) + 30);
    const std::size_t eoi = excerpt.find("kvm_eoi:              apicid 3 vector 252");
    REQUIRE(eoi != std::string::npos);
    const std::size_t line_start = excerpt.rfind('\n', eoi) + 1;
    excerpt.erase(line_start, excerpt.find('\n', eoi) + 1 - line_start);
    excerpt.insert(excerpt.find("\n", excerpt.size() / 2) + 1, "[... vcpu2 spins here ...]\n");
    const auto path = scratch("call-function.txt");
    write_file(path, excerpt);
    const auto plain = run(cli() + " trace-irq '" + path.string() + "' --vector 0xfc").out;
    INFO(plain);
    CHECK(plain.find("3 IPIs") != std::string::npos);
    CHECK(plain.find("to 3 vCPUs") != std::string::npos);
    CHECK(plain.find("no EOI in the trace") != std::string::npos);  // the EOI taken out
    CHECK(plain.find("then no injection of its own") != std::string::npos);  // cut before vCPU 3's injection
    // "line N" is the line the IPI is on
    const std::string cited = "sends IPI 0xfc (ICR write, line ";
    const std::size_t at = plain.find(cited);
    REQUIRE(at != std::string::npos);
    const int line = std::stoi(plain.substr(at + cited.size()));
    std::istringstream in(excerpt);
    std::string text;
    for (int n = 0; n < line; ++n) std::getline(in, text);
    CHECK(text.find("kvm_apic_ipi:") != std::string::npos);
    CHECK(text.find("vec 252") != std::string::npos);

    // wrapped as mail clients do: the same chains, records for records
    const auto records = [](const std::string& json) {
        std::vector<std::uint64_t> v;
        for (const auto& c : json_lines(json))
            for (const auto& d : c["destinations"])
                for (const char* stage : {"accept", "inject", "eoi"})
                    if (d.contains(stage) && !d[stage].is_null()) v.push_back(d[stage]["record"]);
        return v;
    };
    const auto want = records(run(cli() + " trace-irq '" + path.string() + "' --vector 0xfc --json").out);
    CHECK(want.size() >= 20);
    for (const WrapStyle style : kWrapStyles)
        for (const std::size_t width : {72, 76, 80}) {
            INFO(to_string(style) << " at " << width << " columns");
            const auto wrapped = scratch("call-function-wrapped.txt");
            write_file(wrapped, mail_wrap(excerpt, style, width, static_cast<unsigned>(width)));
            CHECK(records(run(cli() + " trace-irq '" + wrapped.string() + "' --vector 0xfc --json").out) == want);
        }
}
