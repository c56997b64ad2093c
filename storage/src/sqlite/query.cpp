// `irqflow query`: one read-only statement (storage/README.md, "query"). The
// connection is query_only and defensive; an authorizer allows reading tables and
// calling functions only, so VACUUM INTO, ATTACH, writable pragmas and
// fts3_tokenizer() (it hands out library addresses) are refused at prepare time,
// before anything runs. Rows are passed on as they are stepped.
#include <cctype>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <memory>

#include "irqflow/storage/database.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

// Pragmas that only report: with or without an argument they read. (Pragmas not
// listed, e.g. journal_mode or user_version with a value, can change the file.)
bool reading_pragma(const char* name, const char* arg) {
    static const char* const always[] = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                                         "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
                                         "collation_list", "function_list", "module_list", "pragma_list", "database_list",
                                         "compile_options", "page_count", "freelist_count", "data_version"};
    static const char* const without_value[] = {"user_version", "schema_version", "application_id", "page_size", "encoding",
                                                "journal_mode", "auto_vacuum", "cache_size", "query_only"};
    for (const char* p : always)
        if (std::strcmp(name, p) == 0) return true;
    for (const char* p : without_value)
        if (std::strcmp(name, p) == 0) return arg == nullptr;
    return false;
}

int authorize(void* denied, int action, const char* a, const char* b, const char* /*db*/, const char* /*trigger*/) {
    auto& why = *static_cast<std::string*>(denied);
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        if (b && (std::strcmp(b, "fts3_tokenizer") == 0 || std::strcmp(b, "load_extension") == 0)) {
            why = std::string(b) + "() is not allowed";
            return SQLITE_DENY;
        }
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        if (a && reading_pragma(a, b)) return SQLITE_OK;
        why = std::string("PRAGMA ") + (a ? a : "") + (b ? " with a value" : "") + " is not allowed";
        return SQLITE_DENY;
    default:
        why = "only reading is allowed (SELECT, WITH, read-only PRAGMAs)";
        return SQLITE_DENY;
    }
}

// The statement's tail holds nothing but blanks, ';' and comments.
bool only_comments(const char* p) {
    while (*p) {
        if (std::isspace(static_cast<unsigned char>(*p)) || *p == ';') ++p;
        else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') ++p;
        } else if (p[0] == '/' && p[1] == '*') {
            const char* end = std::strstr(p + 2, "*/");
            if (!end) return true;  // SQLite itself accepts an unterminated comment at the end
            p = end + 2;
        } else {
            return false;
        }
    }
    return true;
}

struct Deadline {
    std::chrono::steady_clock::time_point at;
    bool hit = false;
};

int check_deadline(void* d) {
    auto& dl = *static_cast<Deadline*>(d);
    dl.hit = dl.hit || std::chrono::steady_clock::now() >= dl.at;
    return dl.hit ? 1 : 0;  // non-zero interrupts the statement
}

}  // namespace

std::uint64_t Database::query(const std::string& sql, const std::function<void(const std::vector<std::string>&)>& on_columns,
                              const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits) {
    std::string denied;
    sqlite3_set_authorizer(db_, &authorize, &denied);
    // the heap limit is SQLite's, for the whole process: set for this statement only
    const sqlite3_int64 heap_before = limits.max_memory ? sqlite3_hard_heap_limit64(static_cast<sqlite3_int64>(limits.max_memory)) : -1;
    struct Unset {
        sqlite3* db;
        sqlite3_int64 heap;
        ~Unset() {
            sqlite3_set_authorizer(db, nullptr, nullptr);
            sqlite3_progress_handler(db, 0, nullptr, nullptr);
            if (heap >= 0) sqlite3_hard_heap_limit64(heap);
        }
    } unset{db_, heap_before};
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, &tail) != SQLITE_OK) {
        const int off = sqlite3_error_offset(db_);
        const std::string msg = !denied.empty() ? denied : sqlite3_errmsg(db_);
        throw StorageError("SQL error" + (off >= 0 ? " at offset " + std::to_string(off) : std::string()) + ": " + msg);
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, &sqlite3_finalize);
    if (tail && !only_comments(tail))
        throw StorageError("SQL error at offset " + std::to_string(tail - sql.c_str()) + ": one statement at a time");
    if (!st) throw StorageError("SQL error: empty statement");
    if (!sqlite3_stmt_readonly(st)) throw StorageError("SQL error: only reading is allowed (SELECT, WITH, read-only PRAGMAs)");
    Deadline deadline{std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                              std::chrono::duration<double>(limits.timeout_s))};
    if (limits.timeout_s > 0) sqlite3_progress_handler(db_, 10000, &check_deadline, &deadline);
    const int n = sqlite3_column_count(st);
    std::vector<std::string> columns;
    for (int c = 0; c < n; ++c) columns.emplace_back(sqlite3_column_name(st, c));
    if (on_columns) on_columns(columns);
    std::uint64_t delivered = 0;
    QueryRow row(static_cast<std::size_t>(n));
    QueryTypes types(static_cast<std::size_t>(n));
    while (limits.max_rows == 0 || delivered < limits.max_rows) {
        const int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            if (deadline.hit)
            {
                char secs[32];
                std::snprintf(secs, sizeof secs, "%g", limits.timeout_s);
                throw StorageError(std::string("SQL error: stopped at the time limit of ") + secs + " s (" + std::to_string(delivered) +
                                   " rows given)");
            }
            if (limits.max_memory && (rc == SQLITE_NOMEM || sqlite3_errcode(db_) == SQLITE_NOMEM))
                throw StorageError("SQL error: stopped at the memory limit of " + std::to_string(limits.max_memory >> 20) + " MiB (" +
                                   std::to_string(delivered) + " rows given)");
            throw StorageError(std::string("SQL error: ") + sqlite3_errmsg(db_));
        }
        for (int c = 0; c < n; ++c) {
            const int type = sqlite3_column_type(st, c);  // before the text conversion below changes it
            const auto* p = sqlite3_column_text(st, c);
            auto& cell = row[static_cast<std::size_t>(c)];
            auto& t = types[static_cast<std::size_t>(c)];
            if (type == SQLITE_NULL || !p) {
                cell.reset();
                t = CellType::Null;
                continue;
            }
            cell.emplace(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st, c)));
            t = type == SQLITE_INTEGER ? CellType::Integer : type == SQLITE_FLOAT ? CellType::Real : type == SQLITE_BLOB ? CellType::Blob : CellType::Text;
        }
        ++delivered;
        if (on_row) on_row(row, types);
    }
    return delivered;
}

}  // namespace irqflow::storage
