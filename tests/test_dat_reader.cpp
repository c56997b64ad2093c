#include <catch2/catch.hpp>

#include "irqflow/capture/readers.hpp"

TEST_CASE("placeholder build check") { REQUIRE(irqflow::kind_by_name("kvm_exit").has_value()); }
