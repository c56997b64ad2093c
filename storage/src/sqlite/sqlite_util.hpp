// Thin RAII over sqlite3 statements: prepare once, bind, step, reset.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../session_sink.hpp"
#include "irqflow/storage/database.hpp"

namespace irqflow::storage {

// Errors name the database file (SQLite knows it), what was being done and why it failed.
[[noreturn]] inline void fail(sqlite3* db, const std::string& what) {
    const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
    throw StorageError((file && *file ? std::string(file) + ": " : std::string()) + what + ": " +
                       (db ? sqlite3_errmsg(db) : "out of memory"));
}

// Runs SQL without results (DDL, BEGIN/COMMIT); throws naming the file (`path`) and,
// when given, what was being done.
inline void exec(sqlite3* db, const std::string& path, const std::string& sql, const std::string& what = {}) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw StorageError(path + ": " + (what.empty() ? "" : what + ": ") + msg);
    }
}

class Stmt {
public:
    Stmt(sqlite3* db, std::string_view sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s_, nullptr) != SQLITE_OK)
            fail(db, "preparing \"" + std::string(sql.substr(0, 60)) + "\"");
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, std::int64_t v) { check(sqlite3_bind_int64(s_, i, v)); return *this; }
    Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    Stmt& bind(int i, std::uint64_t v) { return bind(i, static_cast<std::int64_t>(v)); }
    Stmt& bind(int i, double v) { check(sqlite3_bind_double(s_, i, v)); return *this; }
    Stmt& bind(int i, std::string_view v) {
        check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Stmt& bind(int i, std::optional<std::int64_t> v) {
        if (v) return bind(i, *v);
        check(sqlite3_bind_null(s_, i));
        return *this;
    }
    // Runs to completion (INSERT/UPDATE/DELETE) and resets for the next binding.
    void run() {
        const int rc = sqlite3_step(s_);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW) fail(db_, "executing statement");
        sqlite3_reset(s_);
    }
    bool row() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc != SQLITE_DONE) fail(db_, "reading rows");
        return false;
    }
    std::int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    std::string text(int c) const {
        const auto* p = sqlite3_column_text(s_, c);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
    sqlite3_stmt* get() { return s_; }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) fail(db_, "binding a parameter");
    }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

// "INSERT OR FAIL INTO table (columns) VALUES (?,…),(?,…)…" for `rows` rows; a
// non-empty `first_value` is written as the first column's value in every row instead
// of a parameter (the same in every row: one bind a row fewer).
//
// OR FAIL, not SQLite's default ABORT: ABORT undoes the failing statement's earlier
// rows, so before a statement first changes a page SQLite copies the page (16 KiB) into
// a statement journal — for 32-row statements appending to a few pages each, a quarter
// of the time an insert takes (bench_sqlite_floor on 10.1 M events: 5.1–5.7 s →
// 3.9–4.4 s). An import never keeps part of a statement: any error rolls its whole
// transaction back. OR IGNORE (on_conflict) skips a row whose key is there already.
template <class Columns>
std::string multi_row_insert(std::string_view table, const Columns& columns, std::size_t rows, const std::string& first_value = {},
                             TableSink::OnConflict on_conflict = TableSink::OnConflict::Fail) {
    std::string q = (on_conflict == TableSink::OnConflict::Ignore ? "INSERT OR IGNORE INTO " : "INSERT OR FAIL INTO ") + std::string(table) + " (";
    std::size_t cols = 0;
    for (const auto& c : columns) q += (cols++ ? ", " : "") + std::string(c);
    q += ") VALUES ";
    for (std::size_t r = 0; r < rows; ++r) {
        q += r ? ",(" : "(";
        for (std::size_t c = 0; c < cols; ++c) q += c ? ",?" : first_value.empty() ? "?" : first_value;
        q += ")";
    }
    return q;
}

}  // namespace irqflow::storage
