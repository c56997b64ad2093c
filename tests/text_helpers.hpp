// Comparing the event stream a text gives with the one its trace.dat (or its unwrapped
// text) gives, for the text reader's tests.
#pragma once
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "helpers.hpp"
#include "irqflow/capture/readers.hpp"

namespace irqflow::test {

enum class Compare { Full, NoColumns, MicroSeconds };

// The text stream must equal the dat stream, except that text carries only the
// fields its print format shows: every text field must exist in the dat event with
// the same value.
inline void require_same_stream(const Trace& dat, const Trace& text, Compare how) {
    REQUIRE(dat.events.size() == text.events.size());
    for (std::size_t i = 0; i < dat.events.size(); ++i) {
        const Event& d = dat.events[i];
        const Event& x = text.events[i];
        INFO("event " << i << " " << dat.name(d.name_id));
        REQUIRE(dat.name(d.name_id) == text.name(x.name_id));
        REQUIRE(d.kind == x.kind);
        REQUIRE(d.record == x.record);
        if (how != Compare::NoColumns) {
            REQUIRE(d.cpu == x.cpu);
            REQUIRE(d.tid == x.tid);
            REQUIRE(d.vcpu == x.vcpu);
            REQUIRE(d.vm == x.vm);
            if (how == Compare::Full) REQUIRE(d.ts == x.ts);
            else REQUIRE(std::llabs(d.ts.value() - x.ts.value()) < 1000);
        }
        for (int s = 0; s < static_cast<int>(kMaxFields); ++s)
            if (x.has(s)) {
                INFO("slot " << s);
                REQUIRE(d.has(s));
                REQUIRE(d.f[static_cast<std::size_t>(s)] == x.f[static_cast<std::size_t>(s)]);
            }
        if (d.kind != EventKind::Other && d.kind != EventKind::Lost) REQUIRE(x.present != 0);
    }
}

// Two readings of one text (say, as printed and as a mail client wrapped it) must give
// the same events: kinds, records, columns, every field; for events irqflow does not
// parse, their printed info too unless `other_info` is off (a line broken mid-token is
// joined back with a space there: nothing says where the token was cut).
inline void require_identical_events(const Trace& a, const Trace& b, bool other_info = true) {
    REQUIRE(a.events.size() == b.events.size());
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        const Event& x = a.events[i];
        const Event& y = b.events[i];
        INFO("event " << i << " " << a.name(x.name_id) << " (line " << (i < a.source_lines.size() ? a.source_lines[i] : 0) << " / "
                      << (i < b.source_lines.size() ? b.source_lines[i] : 0) << ")");
        REQUIRE(a.name(x.name_id) == b.name(y.name_id));
        REQUIRE(x.kind == y.kind);
        REQUIRE(x.record == y.record);
        REQUIRE(x.ts == y.ts);
        REQUIRE(x.cpu == y.cpu);
        REQUIRE(x.tid == y.tid);
        REQUIRE(x.vcpu == y.vcpu);
        REQUIRE(x.vm == y.vm);
        REQUIRE(x.present == y.present);
        REQUIRE(x.f == y.f);
        if (other_info && x.kind == EventKind::Other) REQUIRE(a.raw_of(x) == b.raw_of(y));
    }
}

inline Trace load_text(const std::string& text, const std::string& name, const LoadOptions& options = {}) {
    auto p = scratch(name);
    write_file(p, text);
    return load_trace(p.string(), options);
}

}  // namespace irqflow::test
