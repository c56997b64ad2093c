// EventPrinter: trace-cmd report's text for events irqflow does not model, without
// letting a corrupt event format make libtraceevent read past the record.
#include <catch2/catch.hpp>

#include <traceevent/event-parse.h>

#include <cstring>
#include <string>
#include <vector>

#include "dat/event_printer.hpp"

using namespace irqflow;

namespace {

// One event format as tracefs writes it; `fields` after the common ones (offset 8 on).
std::string format(int id, const std::string& name, const std::string& fields, const std::string& print) {
    return "name: " + name + "\nID: " + std::to_string(id) +
           "\nformat:\n"
           "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
           "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
           "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
           "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" +
           fields + "\nprint fmt: " + print + "\n";
}

struct Formats {
    tep_handle* tep = tep_alloc();
    Formats() {
        tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
        tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
        tep_set_long_size(tep, 8);
        const std::string buf_len = "\tfield:u8 buf[16];\toffset:8;\tsize:16;\tsigned:0;\n";
        add(format(7, "hex_by_u32", buf_len + "\tfield:u32 len;\toffset:24;\tsize:4;\tsigned:0;\n",
                   "\"%s\", __print_hex(REC->buf, REC->len)"));
        add(format(8, "hex_by_u8", buf_len + "\tfield:u8 len;\toffset:24;\tsize:1;\tsigned:0;\n",
                   "\"%s\", __print_hex(REC->buf, REC->len)"));
        add(format(9, "indexed", buf_len + "\tfield:u32 len;\toffset:24;\tsize:4;\tsigned:0;\n",
                   "\"at %d\", REC->buf[REC->len]"));
    }
    ~Formats() { tep_free(tep); }
    void add(const std::string& f) { REQUIRE(tep_parse_event(tep, f.data(), f.size(), "test") == TEP_ERRNO__SUCCESS); }
    tep_event* event(int id) { return tep_find_event(tep, id); }
};

std::vector<unsigned char> record(std::uint16_t id, std::uint32_t len) {
    std::vector<unsigned char> r(28, 0);
    std::memcpy(r.data(), &id, 2);
    const std::int32_t pid = 42;
    std::memcpy(r.data() + 4, &pid, 4);
    for (int i = 0; i < 16; ++i) r[8 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(0xa0 + i);
    std::memcpy(r.data() + 24, &len, 4);
    return r;
}

std::string printed(EventPrinter& p, tep_event* ev, const std::vector<unsigned char>& r, int size = -1) {
    std::string out;
    p.print(RawRecord{r.data(), size < 0 ? static_cast<int>(r.size()) : size, 1000, 0, 0, 0}, ev, out);
    return out;
}

}  // namespace

TEST_CASE("a print format whose lengths the record bounds is printed as trace-cmd report prints it", "[dat][printer]") {
    Formats f;
    EventPrinter p(f.tep);
    CHECK(printed(p, f.event(8), record(8, 3)) == "a0 a1 a2");
}

TEST_CASE("a print format that could read past the record is printed field by field instead", "[dat][printer]") {
    // __print_hex(REC->buf, REC->len) with a 32-bit len of 4 G, and an index the record
    // sets: libtraceevent would read gigabytes past the record (ASan catches it)
    Formats f;
    EventPrinter p(f.tep);
    const std::string hex = printed(p, f.event(7), record(7, 0xffffffffu));
    CHECK(hex.find("len=") != std::string::npos);
    CHECK(hex.find("4294967295") != std::string::npos);
    const std::string idx = printed(p, f.event(9), record(9, 0x7fffffffu));
    CHECK(idx.find("len=") != std::string::npos);
}

TEST_CASE("a record shorter than its event format is not handed to libtraceevent", "[dat][printer]") {
    Formats f;
    EventPrinter p(f.tep);
    CHECK(printed(p, f.event(8), record(8, 3), 12) == "[a 12-byte record, shorter than its event format: not printed]");
}
