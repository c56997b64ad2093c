// SHA-256 from libcrypto (OpenSSL): it uses the CPU's SHA extensions where there are
// some, which matters when the file is a multi-GB trace.dat hashed on every import.
#include "irqflow/storage/sha256.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>

#include "irqflow/capture/error.hpp"

namespace irqflow::storage {
namespace {

class Digest {
public:
    Digest() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("libcrypto: cannot start SHA-256");
    }
    void update(const void* p, std::size_t n) {
        if (EVP_DigestUpdate(ctx_.get(), p, n) != 1) throw std::runtime_error("libcrypto: SHA-256 update failed");
    }
    std::string hex() {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1) throw std::runtime_error("libcrypto: SHA-256 final failed");
        static constexpr char kHex[] = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < len; ++i) {
            out += kHex[md[i] >> 4];
            out += kHex[md[i] & 15];
        }
        return out;
    }

private:
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::string sha256(std::string_view bytes) {
    Digest d;
    d.update(bytes.data(), bytes.size());
    return d.hex();
}

std::string sha256_file(const std::string& path, const std::atomic<bool>* stop) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw InputError(path, {}, "cannot open file");
    Digest d;
    std::unique_ptr<unsigned char[]> buf(new unsigned char[1 << 20]);
    std::size_t n;
    while ((n = std::fread(buf.get(), 1, 1 << 20, f.get())) > 0) {
        if (stop && stop->load(std::memory_order_relaxed)) return {};
        d.update(buf.get(), n);
    }
    if (std::ferror(f.get())) throw InputError(path, {}, "read error");
    return d.hex();
}

}  // namespace irqflow::storage
