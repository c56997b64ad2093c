// The two-way tables of symbolic field values: each name and value once, and the text
// reader and the printer agree with them.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "irqflow/capture/field_values.hpp"
#include "irqflow/capture/symbols.hpp"

using namespace irqflow;

TEST_CASE("every symbol table names each value once and each name once", "[symbols]") {
    for (const symbols::Table t : {symbols::Table(symbols::kDeliveryModes), symbols::Table(symbols::kTriggerModes),
                                   symbols::Table(symbols::kDestinationModes), symbols::Table(symbols::kShorthands),
                                   symbols::Table(symbols::kReadWrite), symbols::Table(symbols::kPioDirections),
                                   symbols::Table(symbols::kMmioTypes), symbols::Table(symbols::kApicRegisters),
                                   symbols::Table(symbols::kExceptions)}) {
        std::set<std::int64_t> values;
        std::set<std::string_view> names;
        for (const auto& s : t) {
            CHECK(values.insert(s.value).second);
            CHECK(names.insert(s.name).second);
            CHECK(symbols::value_of(t, symbols::name_of(t, s.value)) == s.value);
        }
    }
}

TEST_CASE("the printer names a field's value from the same table the reader parses", "[symbols]") {
    Event e;
    e.kind = EventKind::Apic;
    const int reg = field_slot(EventKind::Apic, "reg");
    for (const auto& s : symbols::kApicRegisters) {
        e.set(reg, s.value);
        CHECK(field_value_name(e, reg) == s.name);
    }
    e.set(reg, 0x40);  // a hole in the register map has no name
    CHECK(field_value_name(e, reg).empty());
    Event x;
    x.kind = EventKind::InjException;
    const int exc = field_slot(EventKind::InjException, "exception");
    x.set(exc, 13);
    CHECK(field_value_name(x, exc) == "#GP");
    x.set(exc, 2);
    CHECK(field_value_name(x, exc) == "NMI");
}
