// Loading the session for the window: on the calling thread (screenshots, --compare:
// deterministic), or on a thread of its own while the window shows the overview or the
// progress (ui/README.md, "Opening big traces").
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "session.hpp"

namespace irqflow::gui {

class SessionLoader {
public:
    explicit SessionLoader(bool hold_after_overview) { progress.hold_after_overview = hold_after_overview; }
    ~SessionLoader() { stop(); }
    SessionLoader(const SessionLoader&) = delete;
    SessionLoader& operator=(const SessionLoader&) = delete;

    // Loads `src` here; session or error is set when it returns.
    void load(const SessionSource& src);
    // Loads `src` on the loader thread; done() says when session or error is set.
    void start(const SessionSource& src);
    bool done() const { return done_; }
    // Joins the loader, first letting it past a --screenshot-overview hold (else a window
    // that fails to open would wait for it forever).
    void stop();

    LoadProgress progress;
    std::unique_ptr<Session> session;
    std::string error;

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace irqflow::gui
