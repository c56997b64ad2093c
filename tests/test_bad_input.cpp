// Bad input: never a crash, always an error naming the file and the position, and
// through the CLI a one-line message with exit code 2.
#include <catch2/catch.hpp>

#include <random>

#include "helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// The error a load gives, or "" when it loaded.
std::string load_error(const std::string& path, InputPosition* pos = nullptr) {
    try {
        load_trace(path);
        return {};
    } catch (const InputError& e) {
        if (pos) *pos = e.position();
        return e.what();
    }
}

void cut_at_many_offsets(const std::string& name) {
    const std::string bytes = read_file(sample(name));
    REQUIRE(bytes.size() > 100000);
    const auto full = load_trace(sample(name)).records();
    // every offset in the headers, then a spread through the data
    std::vector<std::size_t> cuts;
    for (std::size_t o = 1; o < 4096; o += 7) cuts.push_back(o);
    for (std::size_t o = 4096; o < bytes.size(); o += bytes.size() / 97) cuts.push_back(o);
    cuts.push_back(bytes.size() - 1);
    auto path = scratch("cut-" + name);
    for (auto at : cuts) {
        INFO(name << " cut at " << at);
        write_file(path, bytes.substr(0, at));
        InputPosition pos;
        std::string err = load_error(path.string(), &pos);
        // A cut file must never pass for the complete trace.
        REQUIRE(!err.empty());
        REQUIRE(err.find(path.string()) == 0);
        REQUIRE(pos.unit == InputPosition::Unit::Byte);
        REQUIRE(pos.at <= at);
    }
    (void)full;
}

}  // namespace

TEST_CASE("a trace.dat cut at any offset is an error with a position", "[badinput][dat]") {
    cut_at_many_offsets("pveoi-on.dat");               // v7, zstd
    cut_at_many_offsets("pveoi-on-midflight-v6.dat");  // v6, uncompressed
    cut_at_many_offsets("instance.dat");               // v7, buffer instance
}

TEST_CASE("empty or random or foreign files are clear errors", "[badinput]") {
    auto empty = scratch("empty.dat");
    write_file(empty, "");
    CHECK(load_error(empty.string()).find("empty file") != std::string::npos);

    std::mt19937 rng(42);
    std::string noise(1 << 16, '\0');
    for (auto& c : noise) c = static_cast<char>(rng());
    auto rnd = scratch("random.bin");
    write_file(rnd, noise);
    CHECK_FALSE(load_error(rnd.string()).empty());

    auto elf = scratch("elf");
    write_file(elf, read_file("/bin/true"));
    CHECK_FALSE(load_error(elf.string()).empty());

    CHECK(load_error("/nonexistent/trace.dat").find("no such file") != std::string::npos);
}

TEST_CASE("a trace.dat with a corrupt header is refused and never crashes", "[badinput][dat]") {
    const std::string bytes = read_file(sample("pveoi-on-midflight-v6.dat"));
    auto path = scratch("corrupt.dat");
    std::mt19937 rng(7);
    int refused = 0;
    for (int i = 0; i < 200; ++i) {
        std::string b = bytes;
        // flip bytes inside the header area (magic excluded)
        for (int k = 0; k < 4; ++k) b[10 + rng() % 4000] = static_cast<char>(rng());
        write_file(path, b);
        std::string err = load_error(path.string());
        refused += !err.empty();
    }
    // Some flips land in format text that still parses; the rest must be refused.
    CHECK(refused > 0);
}

TEST_CASE("the CLI prints one line naming the file and exits 2 on bad input", "[badinput][cli]") {
    auto path = scratch("half.dat");
    const std::string bytes = read_file(sample("pveoi-on.dat"));
    write_file(path, bytes.substr(0, bytes.size() / 2));
    for (const char* cmd : {"stats", "events"}) {
        auto r = run(cli() + " " + cmd + " '" + path.string() + "'", true);
        CHECK(r.status == 2);
        CHECK(r.out.find(path.string()) != std::string::npos);
        CHECK(r.out.find("byte ") != std::string::npos);
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    }
    auto text = scratch("garbage.txt");
    write_file(text, " qemu-1 [000] 1.000001: kvm_entry: vcpu 0, rip 0x1\n\x01\x02garbage\n");
    auto r = run(cli() + " stats '" + text.string() + "'", true);
    CHECK(r.status == 2);
    CHECK(r.out.find("line 2") != std::string::npos);
    CHECK(run(cli() + " stats", true).status == 64);
    CHECK(run(cli() + " frobnicate x", true).status == 64);
}

TEST_CASE("checking the headers first finds what loading would, and loading after it reads the same", "[badinput][dat]") {
    const std::string whole = read_file(sample("pveoi-on.dat"));
    for (std::size_t cut : {std::size_t{100}, std::size_t{1000}, whole.size() / 2}) {
        auto p = scratch("check-" + std::to_string(cut) + ".dat");
        write_file(p, whole.substr(0, cut));
        std::string from_check, from_load;
        try {
            check_trace_headers(p.string());
        } catch (const InputError& e) {
            from_check = e.what();
        }
        try {
            load_trace(p.string());
        } catch (const InputError& e) {
            from_load = e.what();
        }
        INFO("cut at " << cut);
        CHECK(!from_check.empty());
        CHECK(from_check == from_load);
    }
    check_trace_headers(sample("pveoi-on.dat"));  // a good file passes
    LoadOptions checked;
    checked.headers_checked = true;
    CHECK(load_trace(sample("pveoi-on.dat"), checked).events.size() == load_trace(sample("pveoi-on.dat")).events.size());
    CHECK_THROWS_AS(check_trace_headers(scratch("does-not-exist.dat").string()), InputError);
}
