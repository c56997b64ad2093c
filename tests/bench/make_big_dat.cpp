// Writes a large, valid trace.dat from a real capture: the capture converted to an
// uncompressed v6 file by `trace-cmd convert`, then every CPU's ring-buffer pages
// written again and again with their page timestamps shifted by the capture's span, so
// the result reads (with irqflow and with trace-cmd) as one long, time-ordered trace of
// the same workload. Benchmarks read this file rather than a stream built in memory.
//
//   make_big_dat --events N IN.dat OUT.dat     (also writes OUT.dat.events: the count)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dat/dat_validate.hpp"
#include "irqflow/capture/readers.hpp"

namespace {

std::vector<char> read_range(std::ifstream& in, std::uint64_t off, std::uint64_t n) {
    std::vector<char> b(n);
    in.seekg(static_cast<std::streamoff>(off));
    if (!in.read(b.data(), static_cast<std::streamsize>(n))) throw std::runtime_error("short read");
    return b;
}

void put_u64(char* p, std::uint64_t v) { std::memcpy(p, &v, 8); }  // trace.dat of x86 hosts: little-endian
std::uint64_t get_u64(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t target = 0;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
        else files.push_back(a);
    }
    if (files.size() != 2 || target == 0) {
        std::fprintf(stderr, "usage: make_big_dat --events N IN.dat OUT.dat\n");
        return 64;
    }
    try {
        const std::string v6 = files[1] + ".v6.tmp";
        const std::string cmd = "trace-cmd convert --file-version 6 --compression none -i '" + files[0] + "' -o '" + v6 + "' > /dev/null 2>&1";
        if (std::system(cmd.c_str()) != 0) throw std::runtime_error("trace-cmd convert failed on " + files[0]);
        const irqflow::DatLayout l = irqflow::validate_dat(v6);
        if (l.version != 6 || l.compressed || l.adjusts_timestamps) throw std::runtime_error("expected a plain v6 file from trace-cmd convert");
        const irqflow::Trace base = irqflow::load_trace(v6);
        const std::uint64_t records = base.records();
        const std::uint64_t reps = (target + records - 1) / records;
        const std::int64_t span = base.events.back().ts.value() - base.events.front().ts.value() + 1'000'000;

        std::ifstream in(v6, std::ios::binary);
        std::vector<char> head = read_range(in, 0, l.data_offset);
        // The CPU table follows the last "flyrecord\0" of the headers: (offset, size) per CPU.
        const std::string tag("flyrecord\0", 10);
        const auto at = std::string_view(head.data(), head.size()).rfind(tag);
        if (at == std::string_view::npos) throw std::runtime_error("no flyrecord section");
        const std::size_t table = at + tag.size();
        std::size_t cpus = 0;
        for (const auto& c : l.cpu_data) cpus = std::max<std::size_t>(cpus, static_cast<std::size_t>(c.cpu) + 1);
        if (table + cpus * 16 > head.size()) throw std::runtime_error("CPU table past the data");
        head.resize(table + cpus * 16);
        std::uint64_t pos = (head.size() + l.page_size - 1) / l.page_size * l.page_size;
        std::vector<std::uint64_t> new_off(cpus, 0), new_size(cpus, 0);
        for (const auto& c : l.cpu_data) {
            new_off[static_cast<std::size_t>(c.cpu)] = pos;
            new_size[static_cast<std::size_t>(c.cpu)] = c.size * reps;
            pos += (c.size * reps + l.page_size - 1) / l.page_size * l.page_size;
        }
        for (std::size_t c = 0; c < cpus; ++c) {
            put_u64(head.data() + table + c * 16, new_off[c]);
            put_u64(head.data() + table + c * 16 + 8, new_size[c]);
        }
        std::ofstream out(files[1], std::ios::binary | std::ios::trunc);
        out.write(head.data(), static_cast<std::streamsize>(head.size()));
        for (const auto& c : l.cpu_data) {
            out.seekp(static_cast<std::streamoff>(new_off[static_cast<std::size_t>(c.cpu)]));
            std::vector<char> pages = read_range(in, c.offset, c.size);
            for (std::uint64_t r = 0; r < reps; ++r) {
                std::vector<char> shifted = pages;
                for (std::uint64_t p = 0; p + 8 <= shifted.size(); p += l.page_size)
                    put_u64(shifted.data() + p, get_u64(shifted.data() + p) + r * static_cast<std::uint64_t>(span));
                out.write(shifted.data(), static_cast<std::streamsize>(shifted.size()));
            }
        }
        out.seekp(static_cast<std::streamoff>(pos - 1));
        out.put('\0');
        out.close();
        std::remove(v6.c_str());
        if (!out) throw std::runtime_error("cannot write " + files[1]);
        std::ofstream(files[1] + ".events") << records * reps << "\n";  // the exact count, for the benchmarks
        std::printf("%s: %llu events (%s x%llu)\n", files[1].c_str(), static_cast<unsigned long long>(records * reps),
                    files[0].c_str(), static_cast<unsigned long long>(reps));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_big_dat: %s\n", e.what());
        return 2;
    }
}
