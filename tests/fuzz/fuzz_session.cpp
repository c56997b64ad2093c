// SQLite file bytes → open (version and foreign-file checks), session list, integrity
// check, and every session loaded back and replayed as the GUI does.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "irqflow/capture/error.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/database.hpp"

namespace {

// A real file in a private directory: SQLite puts -wal/-shm next to it.
std::string hold(const std::uint8_t* data, std::size_t size) {
    static const std::string dir = [] {
        std::string tmpl = (std::filesystem::temp_directory_path() / "irqflow-fuzz-XXXXXX").string();
        return std::string(mkdtemp(tmpl.data()) ? tmpl : std::string("."));
    }();
    const std::string path = dir + "/session.db";
    for (const char* ext : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + ext);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hold(data, size);
    try {
        irqflow::storage::Database db(path, irqflow::storage::Database::Mode::ReadOnly);
        db.verify();
        for (const auto& s : db.sessions()) {
            auto stored = db.load_session(std::to_string(s.id));
            (void)irqflow::replay::replay(stored.trace);
        }
    } catch (const irqflow::storage::StorageError&) {
    } catch (const irqflow::InputError&) {
    }
    return 0;
}
