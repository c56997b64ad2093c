#include "pg_connection.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <regex>

namespace irqflow::storage {

namespace {
struct ResultFree {
    void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultFree>;

std::string trimmed(const char* msg) {
    std::string s = msg ? msg : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}
}  // namespace

bool is_postgres_uri(std::string_view db) { return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0; }

std::string redacted_uri(std::string_view uri) {
    std::string s(uri);
    // scheme://user:PASSWORD@host...
    static const std::regex userinfo(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
    s = std::regex_replace(s, userinfo, "$1:***@");
    // ...?password=PASSWORD&...
    static const std::regex param(R"(([?&]password=)[^&]*)");
    return std::regex_replace(s, param, "$1***");
}

PgConnection::PgConnection(const std::string& uri) : where_(redacted_uri(uri)) {
    c_ = PQconnectdb(uri.c_str());
    if (!c_ || PQstatus(c_) != CONNECTION_OK) {
        const std::string why = c_ ? trimmed(PQerrorMessage(c_)) : "out of memory";
        PQfinish(c_);
        c_ = nullptr;
        throw StorageError(where_ + ": cannot connect: " + why);
    }
    // no notices on stderr (CREATE ... IF NOT EXISTS); the server's own language for
    // errors (lc_messages is the superuser's to set)
    PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
    exec("SET client_min_messages = warning");
}

PgConnection::~PgConnection() { PQfinish(c_); }

void PgConnection::fail(const std::string& what, pg_result* r) const {
    std::string why = r ? trimmed(PQresultErrorMessage(r)) : "";
    if (why.empty()) why = trimmed(PQerrorMessage(c_));
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    const char* constraint = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : nullptr;
    throw PgError(where_ + ": " + what + ": " + why, state ? state : "", constraint ? constraint : "");
}

void PgConnection::exec(const std::string& sql) {
    Result r(PQexec(c_, sql.c_str()));
    const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail("\"" + sql.substr(0, 60) + "\"", r.get());
}

PgRows PgConnection::query(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    Result r(PQexecParams(c_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
    const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail("\"" + sql.substr(0, 60) + "\"", r.get());
    PgRows out;
    const int nc = PQnfields(r.get()), nr = PQntuples(r.get());
    for (int c = 0; c < nc; ++c) out.columns.emplace_back(PQfname(r.get(), c));
    out.rows.reserve(static_cast<std::size_t>(nr));
    for (int i = 0; i < nr; ++i) {
        auto& row = out.rows.emplace_back();
        for (int c = 0; c < nc; ++c)
            row.push_back(PQgetisnull(r.get(), i, c) ? std::nullopt : std::optional<std::string>(PQgetvalue(r.get(), i, c)));
    }
    return out;
}

void PgConnection::copy_in(const std::string& table, const std::vector<std::string>& columns, const std::function<bool(std::string&)>& fill, bool freeze) {
    std::string sql = "COPY " + table + " (";
    for (std::size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : "") + columns[i];
    sql += freeze ? ") FROM STDIN (FREEZE)" : ") FROM STDIN";
    Result r(PQexec(c_, sql.c_str()));
    if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN) fail("COPY " + table, r.get());
    std::string buf;
    try {
        for (bool more = true; more;) {
            buf.clear();
            more = fill(buf);
            for (std::size_t at = 0; at < buf.size();) {  // libpq takes an int length
                const auto n = std::min<std::size_t>(buf.size() - at, 1 << 20);
                if (PQputCopyData(c_, buf.data() + at, static_cast<int>(n)) != 1) fail("COPY " + table);
                at += n;
            }
        }
    } catch (...) {
        PQputCopyEnd(c_, "aborted by the client");
        while (PGresult* rest = PQgetResult(c_)) PQclear(rest);
        throw;
    }
    if (PQputCopyEnd(c_, nullptr) != 1) fail("COPY " + table);
    Result done(PQgetResult(c_));
    if (!done || PQresultStatus(done.get()) != PGRES_COMMAND_OK) fail("COPY " + table, done.get());
    while (PGresult* rest = PQgetResult(c_)) PQclear(rest);
}

void PgConnection::copy_out(const std::string& query, const std::function<void(std::string_view)>& line) {
    const std::string sql = "COPY (" + query + ") TO STDOUT";
    Result r(PQexec(c_, sql.c_str()));
    if (!r || PQresultStatus(r.get()) != PGRES_COPY_OUT) fail("\"" + sql.substr(0, 60) + "\"", r.get());
    std::exception_ptr error;
    for (;;) {
        char* buf = nullptr;
        const int n = PQgetCopyData(c_, &buf, 0);
        if (n < 0) break;  // -1: done, -2: failed (the result below says why)
        std::unique_ptr<char, decltype(&PQfreemem)> owned(buf, &PQfreemem);
        if (error) continue;  // drain what the server still sends
        try {
            line(std::string_view(buf, static_cast<std::size_t>(n > 0 && buf[n - 1] == '\n' ? n - 1 : n)));
        } catch (...) {
            error = std::current_exception();
            PQrequestCancel(c_);
        }
    }
    Result done(PQgetResult(c_));
    while (PGresult* rest = PQgetResult(c_)) PQclear(rest);
    if (error) std::rethrow_exception(error);
    if (!done || PQresultStatus(done.get()) != PGRES_COMMAND_OK) fail("\"" + sql.substr(0, 60) + "\"", done.get());
}

void PgConnection::stream(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                          const std::function<void(const std::vector<std::string>&, const std::vector<unsigned>&)>& on_columns,
                          const std::function<bool(const std::vector<std::optional<std::string_view>>&)>& on_row) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    if (!PQsendQueryParams(c_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0)) fail("sending a query");
    PQsetSingleRowMode(c_);
    bool described = false, stopped = false;
    Result failed;
    std::exception_ptr error;
    std::vector<std::optional<std::string_view>> row;
    while (PGresult* raw = PQgetResult(c_)) {
        Result r(raw);
        const auto st = PQresultStatus(raw);
        if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
            if (!failed) failed = std::move(r);
            continue;
        }
        if (stopped || error) continue;
        const int nc = PQnfields(raw);
        try {
            if (!described && (st == PGRES_SINGLE_TUPLE || st == PGRES_TUPLES_OK)) {
                std::vector<std::string> names;
                std::vector<unsigned> types;
                for (int c = 0; c < nc; ++c) {
                    names.emplace_back(PQfname(raw, c));
                    types.push_back(PQftype(raw, c));
                }
                described = true;
                if (on_columns) on_columns(names, types);
            }
            if (st != PGRES_SINGLE_TUPLE) continue;
            row.assign(static_cast<std::size_t>(nc), std::nullopt);
            for (int c = 0; c < nc; ++c)
                if (!PQgetisnull(raw, 0, c))
                    row[static_cast<std::size_t>(c)] = std::string_view(PQgetvalue(raw, 0, c), static_cast<std::size_t>(PQgetlength(raw, 0, c)));
            if (!on_row(row)) {
                stopped = true;
                PQrequestCancel(c_);
            }
        } catch (...) {
            error = std::current_exception();
            PQrequestCancel(c_);
        }
    }
    if (error) std::rethrow_exception(error);
    // a cancel we asked for is no failure; any other is
    if (failed && !(stopped && std::string_view(PQresultErrorField(failed.get(), PG_DIAG_SQLSTATE) ?: "") == "57014"))
        fail("\"" + sql.substr(0, 60) + "\"", failed.get());
}

PgTransaction::~PgTransaction() {
    if (done_) return;
    try {
        c_.exec("ROLLBACK");
    } catch (const StorageError&) {
    }
}

void PgTransaction::commit() {
    c_.exec("COMMIT");
    done_ = true;
}

int PgConnection::server_version() const { return PQserverVersion(c_); }
bool PgConnection::in_transaction() const { return PQtransactionStatus(c_) != PQTRANS_IDLE; }

std::string copy_escape(std::string_view v) {
    std::string o;
    o.reserve(v.size());
    for (char ch : v) {
        switch (ch) {
            case '\\': o += "\\\\"; break;
            case '\t': o += "\\t"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            default: o += ch;
        }
    }
    return o;
}

}  // namespace irqflow::storage
