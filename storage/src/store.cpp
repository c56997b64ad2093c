#include "irqflow/storage/store.hpp"

#include "irqflow/storage/database.hpp"
#include "pg/pg_connection.hpp"
#include "pg/pg_store.hpp"

namespace irqflow::storage {

std::unique_ptr<Store> open_store(const std::string& db, Store::Mode mode, std::function<void(const LockWait&)> on_wait) {
    if (is_postgres_uri(db)) return std::make_unique<PgStore>(db, mode);
    return std::make_unique<Database>(db, mode, std::move(on_wait));
}

QueryResult Store::query(const std::string& sql) {
    QueryResult r;
    query(sql, [&](const std::vector<std::string>& c) { r.columns = c; }, [&](const QueryRow& row, const QueryTypes&) { r.rows.push_back(row); });
    return r;
}

std::optional<StoredSessionName> stored_session_name(const std::string& given) {
    const auto colon = given.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == given.size()) return std::nullopt;
    StoredSessionName n{given.substr(0, colon), given.substr(colon + 1)};
    // in a URI the last ':' may be the port's ("…:5432/db"): a session has no '/'
    if (is_postgres_uri(n.db)) return n.session.find('/') == std::string::npos ? std::optional(n) : std::nullopt;
    return is_database_file(n.db) ? std::optional(n) : std::nullopt;
}

}  // namespace irqflow::storage
