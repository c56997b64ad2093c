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

#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"

TEST_CASE("counterfactual: exits saved predicted from feature-off captures match the feature-on captures", "[replay][predict]") {
    using namespace irqflow;
    auto stats = [](const char* name) { return replay::replay(load_trace(sample(name))).stats; };
    // PV EOI: the off capture's predicted hit rate vs the on capture's measured one
    const auto off = stats("pveoi-off.dat");
    const auto on = stats("pveoi-on.dat");
    const double predicted = static_cast<double>(off.predicted_pv_eoi_saved) / static_cast<double>(off.eois - off.eoi_nothing_in_service);
    INFO("PV EOI hit rate: predicted " << predicted << ", measured " << on.pv_eoi_hit_rate);
    CHECK(off.pv_eois == 0);
    CHECK(std::abs(predicted - on.pv_eoi_hit_rate) < 0.05);
    // PV IPI: ICR-write sends the hypercall would merge vs what the hypercalls saved
    const auto ipi_off = stats("pvipi-off.dat");
    CHECK(ipi_off.pv_ipi_hypercalls == 0);
    std::uint64_t measured = 0;
    for (const char* n : {"pveoi-on.dat", "pveoi-off.dat", "instance.dat"}) measured += stats(n).exits_saved_pv_ipi;
    const double mean = static_cast<double>(measured) / 3.0;
    INFO("PV IPI exits saved: predicted " << ipi_off.predicted_pv_ipi_saved << ", measured mean " << mean);
    CHECK(static_cast<double>(ipi_off.predicted_pv_ipi_saved) > mean * 0.5);
    CHECK(static_cast<double>(ipi_off.predicted_pv_ipi_saved) < mean * 2.0);
}
