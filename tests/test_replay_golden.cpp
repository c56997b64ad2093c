// Golden "diff tests": `irqflow check` on each real capture must print exactly the
// report stored under tests/golden/. After an intended change, regenerate with
//   IRQFLOW_UPDATE_GOLDEN=1 build/tests/irqflow_tests '[golden]'
// and review the diff.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "helpers.hpp"

using namespace irqflow::test;

TEST_CASE("check reports on the real captures match their golden files", "[replay][golden]") {
    const bool update = std::getenv("IRQFLOW_UPDATE_GOLDEN") != nullptr;
    for (const auto& name : dat_samples()) {
        INFO(name);
        for (std::string flags : {"", "--json "}) {
            auto r = run(cli() + " check " + flags + "'" + sample(name) + "'");
            CHECK(r.status == 0);
            const std::string golden = std::string(IRQFLOW_GOLDEN) + "/" + name + (flags.empty() ? ".check.txt" : ".check.json");
            if (update) write_file(golden, r.out);
            CHECK(r.out == read_file(golden));
        }
    }
}
