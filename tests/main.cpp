// Catch2's main for both test programs, plus the one cleanup every test run needs: the
// scratch directory it wrote its files into (tests/helpers.hpp, scratch()). Left behind,
// the scratch directories of one ctest run took ~10 GB, and they filled CI's disk over
// a few runs.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

int main(int argc, char* argv[]) {
    const int failed = Catch::Session().run(argc, argv);
    std::error_code ignored;  // nothing to remove, or a file still open: nothing to report
    std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("irqflow-test-" + std::to_string(getpid())), ignored);
    return failed;
}
