#include "session_loader.hpp"

#include <exception>

namespace irqflow::gui {

void SessionLoader::load(const SessionSource& src) {
    try {
        session = load_session(src, progress);
    } catch (const std::exception& e) {
        error = e.what();
    }
    done_ = true;
}

void SessionLoader::start(const SessionSource& src) {
    thread_ = std::thread([this, src] { load(src); });
}

void SessionLoader::stop() {
    progress.resume = true;
    if (thread_.joinable()) thread_.join();
}

}  // namespace irqflow::gui
