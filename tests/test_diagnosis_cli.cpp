// The diagnosis as a user meets it: one fault put into the report text of a real
// capture (xapic.dat, 4 vCPUs), the text cut to an excerpt at both ends, annotated and
// mail-wrapped as a bug report arrives. `check` names the cause first, in one root;
// `check --json` and `explain` say the same (replay/README.md, "Diagnosis").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <functional>
#include <sstream>

#include "helpers.hpp"
#include "mail_wrap.hpp"

using namespace irqflow::test;

namespace {

std::vector<std::string> report_lines() {
    static const std::vector<std::string> lines = [] {
        const std::string text = run("trace-cmd report '" + sample("xapic.dat") + "' 2>/dev/null").out;
        std::vector<std::string> v;
        std::istringstream in(text);
        for (std::string l; std::getline(in, l);) v.push_back(l);
        return v;
    }();
    return lines;
}

// The first line from the middle of the report on that `pred` holds.
std::size_t find_from_middle(const std::vector<std::string>& l, const std::function<bool(std::size_t)>& pred) {
    for (std::size_t i = l.size() / 2; i + 1 < l.size(); ++i)
        if (pred(i)) return i;
    FAIL("no such line in the report");
    return 0;
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// A bug report around lines[at]: cut mid-line 2,500 lines before and after, with the
// writer's words around it, wrapped at 76 columns with format=flowed.
std::string excerpt(const std::vector<std::string>& l, std::size_t at) {
    std::string t = "Hi all,\n\nafter a few minutes the guest stalls; here is the trace around it:\n\n";
    const std::size_t from = at - 2500, to = at + 2500;
    t += l[from].substr(l[from].size() / 2) + "\n";  // the first line cut short
    for (std::size_t i = from + 1; i < to; ++i) t += l[i] + "\n";
    t += l[to].substr(0, l[to].size() / 3) + "\n[... rest snipped ...]\n\nThanks,\nA. Developer\n";
    return mail_wrap(t, WrapStyle::Flowed, 76, 7);
}

// The 1-based line of the wrapped text where the record holding `key` starts.
std::size_t line_of(const std::string& text, const std::string& key) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string l; std::getline(in, l);) {
        ++n;
        if (l.find(key) != std::string::npos) return n;
    }
    FAIL("not in the excerpt: " << key);
    return 0;
}

// The "pid [cpu] ts:" head of a report line: what finds it again after wrapping.
std::string head(const std::string& line) { return line.substr(0, line.find(": ") + 1); }

struct Checked {
    nlohmann::json root;  // the one root finding
    std::string text, explain;
};

Checked check(const std::string& name, const std::string& report) {
    const auto p = scratch(name);
    write_file(p, report);
    auto j = run(cli() + " check --json '" + p.string() + "'");
    REQUIRE(j.status == 1);
    const auto doc = nlohmann::json::parse(j.out);
    std::vector<nlohmann::json> roots;
    for (const auto& f : doc["findings"])
        if (!f.contains("caused_by")) roots.push_back(f);
    INFO(j.out.substr(0, 4000));
    REQUIRE(roots.size() == 1);  // one fault, one root
    REQUIRE(roots[0].contains("diagnosis"));
    Checked c{roots[0], run(cli() + " check '" + p.string() + "'").out, ""};
    auto e = run(cli() + " explain '" + p.string() + "' 1");
    CHECK(e.status == 0);
    c.explain = e.out;
    return c;
}

// The sentence comes first in `check`, and `explain` gives the same one.
void same_sentence(const Checked& c) {
    const std::string sentence = c.root["diagnosis"]["sentence"];
    CHECK(c.text.rfind(sentence + "\n", 0) == 0);
    CHECK(has(c.explain, ("diagnosis: " + sentence + "\n").c_str()));
    CHECK(has(c.explain, "← the finding"));
}

}  // namespace

TEST_CASE("a deleted EOI is diagnosed as that EOI missing, between its injection and what it blocked", "[cli][diagnosis]") {
    auto l = report_lines();
    const std::size_t at = find_from_middle(l, [&](std::size_t i) {
        return has(l[i], "kvm_eoi:") && has(l[i], "vector 251") && !has(l[i + 1], "kvm_pv_eoi");
    });
    const std::string before = head(l[at - 1]), after = head(l[at + 1]);
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(at));
    const std::string text = excerpt(l, at);
    const Checked c = check("lost-eoi-report.txt", text);
    const auto& d = c.root["diagnosis"];
    CHECK(d["cause"] == "missing");
    CHECK(d["kind"] == "kvm_eoi");
    CHECK(d["vector"] == 0xfb);
    CHECK(d["lines"][0].get<std::size_t>() <= line_of(text, before));  // the window holds where the EOI was
    CHECK(d["lines"][1].get<std::size_t>() >= line_of(text, after));
    CHECK(d["records"][0].get<std::uint64_t>() < d["records"][1].get<std::uint64_t>());
    same_sentence(c);
    CHECK(has(c.text, "the kvm_eoi of 0xfb is missing between record "));
}

TEST_CASE("a deleted accept is diagnosed as missing since that vector's last injection, not as the consumed accept", "[cli][diagnosis]") {
    auto l = report_lines();
    const std::size_t at = find_from_middle(l, [&](std::size_t i) { return has(l[i], "kvm_apic_accept_irq:") && has(l[i], "vec 236 "); });
    const std::string before = head(l[at - 1]), after = head(l[at + 1]);
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(at));
    const std::string text = excerpt(l, at);
    const Checked c = check("lost-accept-report.txt", text);
    const auto& d = c.root["diagnosis"];
    CHECK(d["cause"] == "missing");
    CHECK(d["kind"] == "kvm_apic_accept_irq");
    CHECK(d["vector"] == 0xec);
    CHECK(d["lines"][0].get<std::size_t>() <= line_of(text, before));
    CHECK(d["lines"][1].get<std::size_t>() >= line_of(text, after));
    CHECK(has(d["why"].get<std::string>().c_str(), "since its last one was injected at record"));
    same_sentence(c);
}

TEST_CASE("an IPI delivered to the wrong APIC id is one root, wrong-field on the accept, its consequences under it", "[cli][diagnosis]") {
    auto l = report_lines();
    const std::size_t ipi = find_from_middle(l, [&](std::size_t i) { return has(l[i], "kvm_apic_ipi:") && has(l[i], "all-but-self"); });
    std::size_t at = ipi + 1;
    while (!has(l[at], "kvm_apic_accept_irq:  apicid 2 vec 252")) ++at;
    const std::string changed = head(l[at]);
    l[at].replace(l[at].find("apicid 2"), 8, "apicid 0");  // APIC id 0 is the sender's own: all-but-self excludes it
    const std::string text = excerpt(l, at);
    const Checked c = check("wrong-destination-report.txt", text);
    CHECK(c.root["rule"] == "IPI-MISSING-DEST");
    const auto& d = c.root["diagnosis"];
    CHECK(d["cause"] == "wrong-field");
    CHECK(d["kind"] == "kvm_apic_accept_irq");
    CHECK(d["field"] == "apicid");
    CHECK(d["seen"] == 0);
    CHECK(d["expected"] == 2);
    CHECK(d["lines"][0] == line_of(text, changed));
    CHECK(d["records"][0] == d["records"][1]);
    CHECK(d["alternatives"].size() >= 1);  // the send itself may have named the wrong one
    same_sentence(c);
    CHECK(has(c.text, "follow-on IPI-EXTRA-DEST"));  // the consequences, listed under the root
    CHECK(has(c.text, "follow-on INJ-NOT-PENDING"));
}

TEST_CASE("explain says which findings there are when FINDING names none", "[cli][diagnosis]") {
    const std::string cases = IRQFLOW_CASES;
    const std::string f = "'" + cases + "/ISR-ORDER-fires-below-in-service.txt'";
    auto ok = run(cli() + " explain " + f + " @9");
    CHECK(ok.status == 0);
    CHECK(has(ok.out, "IRR {0x61} ISR {} TPR 0x00 PPR 0x00"));  // the model before 0x61 is injected
    CHECK(has(ok.out, "→ IRR {} → {0x51}"));                   // the accept of 0x51
    CHECK(has(ok.out, "ISR {0x61} → {0x51}"));    // and after it
    auto many = run(cli() + " explain " + f + " 2", true);
    CHECK(many.status == 64);
    CHECK(has(many.out, "gives 1 root finding (1..1)"));
    auto where = run(cli() + " explain " + f + " @3", true);
    CHECK(where.status == 64);
    CHECK(has(where.out, "no finding at record 3; findings are at records 9"));
    auto word = run(cli() + " explain " + f + " first", true);
    CHECK(word.status == 64);
    CHECK(has(word.out, "not a number N"));
    auto none = run(cli() + " explain '" + cases + "/ISR-ORDER-quiet-three-deep.txt' 1", true);
    CHECK(none.status == 64);
    CHECK(has(none.out, "gives no findings"));
}
