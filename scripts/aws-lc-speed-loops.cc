// Why this exists: the aws-lc column's aes-128-gcm@16 crosscheck read 1.117 where a plain C loop
// of the two call sequences (scripts/aws-lc-loops.c) read 1.045-1.102. This program times, in one
// process against one libcrypto, alternating short blocks on the thread's CPU clock:
//   bssl:    `bssl speed`'s encrypt lambda (AWS-LC tool/speed.cc SpeedEvpGenericChunk, copied:
//            captures by reference, EVP_EncryptInit_ex, AAD, out of place, Final, GET_TAG) called
//            through a std::function<bool()> from a separate, not inlined loop, as TimeFunction does;
//   inline:  the same lambda called directly (inlined) in a plain loop;
//   column:  the aws-lc column's timed calls as crates/impls/src/evp/symmetric/mod.rs makes them
//            (EVP_CipherInit_ex(enc=1) with the nonce, AAD, in place, Final, no tag), a plain loop;
//   col-fn:  the column's calls through a std::function, as bssl speed would call them.
// It prints, per round, the median ns per message of each and the rate ratios column/bssl (what
// the crosscheck should read), column/inline (the calls alone) and inline/bssl (the std::function).
//
// build: c++ -O3 -DNDEBUG -std=c++17 -I AWS_LC_TREE/include -o aws-lc-speed-loops \
//          scripts/aws-lc-speed-loops.cc LIBDIR/libcrypto.so -Wl,-rpath,LIBDIR
// run:   taskset -c 1 ./aws-lc-speed-loops BYTES ROUNDS
#include <openssl/cipher.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <time.h>
#include <vector>

static double cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// TimeFunction's inner loop: every call through the std::function.
__attribute__((noinline)) static bool through_function(std::function<bool()> func, long n) {
  for (long i = 0; i < n; i++) {
    if (!func()) return false;
  }
  return true;
}

template <typename F>
__attribute__((noinline)) static bool direct(F &f, long n) {
  for (long i = 0; i < n; i++) {
    if (!f()) return false;
  }
  return true;
}

static uint8_t *aligned(size_t n) {
  return static_cast<uint8_t *>(aligned_alloc(64, (n + 32 + 63) / 64 * 64));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: aws-lc-speed-loops BYTES ROUNDS\n");
    return 2;
  }
  const size_t chunk_byte_len = atoi(argv[1]), ad_len = 13;
  const int rounds = atoi(argv[2]);
  const EVP_CIPHER *cipher = EVP_aes_128_gcm();
  uint8_t key[16] = {0}, aad13[13] = {0}, nonce12[12] = {0};
  std::unique_ptr<uint8_t[]> nonce(new uint8_t[12]()), ad(new uint8_t[13]());
  uint8_t *plaintext = aligned(chunk_byte_len), *ciphertext = aligned(chunk_byte_len + 16);
  uint8_t *tag = aligned(16), *msg = aligned(chunk_byte_len);
  std::fill(plaintext, plaintext + chunk_byte_len, 0);
  std::fill(msg, msg + chunk_byte_len, 0);
  bssl::UniquePtr<EVP_CIPHER_CTX> ctx(EVP_CIPHER_CTX_new()), ctx2(EVP_CIPHER_CTX_new());
  if (!EVP_EncryptInit_ex(ctx.get(), cipher, NULL, key, nonce.get()) ||
      !EVP_EncryptInit_ex(ctx2.get(), cipher, NULL, key, nonce12)) {
    return 1;
  }
  int len, result;
  int *len_ptr = &len;
  bool isAead = EVP_CIPHER_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER;
  // tool/speed.cc SpeedEvpGenericChunk's encrypt lambda, as written there.
  auto bssl_lambda = [&ctx, chunk_byte_len, plaintext, ciphertext, len_ptr, tag, &nonce, &ad,
                      ad_len, &isAead, &result]() -> bool {
    result = EVP_EncryptInit_ex(ctx.get(), NULL, NULL, NULL, nonce.get());
    if (isAead) {
      result &= EVP_EncryptUpdate(ctx.get(), NULL, len_ptr, ad.get(), ad_len);
    }
    result &= EVP_EncryptUpdate(ctx.get(), ciphertext, len_ptr, plaintext, chunk_byte_len);
    result &= EVP_EncryptFinal_ex(ctx.get(), ciphertext + *len_ptr, len_ptr);
    if (isAead) {
      result &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, tag);
    }
    return result;
  };
  EVP_CIPHER_CTX *c2 = ctx2.get();
  int outl = 0, n = (int)chunk_byte_len;
  auto column = [c2, msg, n, &outl, &nonce12, &aad13]() -> bool {
    return EVP_CipherInit_ex(c2, NULL, NULL, NULL, nonce12, 1) == 1 &&
           EVP_EncryptUpdate(c2, NULL, &outl, aad13, 13) == 1 &&
           EVP_EncryptUpdate(c2, msg, &outl, msg, n) == 1 &&
           EVP_EncryptFinal_ex(c2, msg + outl, &outl) == 1;
  };
  const char *names[4] = {"bssl", "inline", "column", "col-fn"};
  auto run = [&](int which, long iters) {
    switch (which) {
      case 0: return through_function(bssl_lambda, iters);
      case 1: return direct(bssl_lambda, iters);
      case 2: return direct(column, iters);
      default: return through_function(column, iters);
    }
  };
  long iters = 1000;
  for (double t0 = cpu_ns(); run(0, iters) && cpu_ns() - t0 < 5e6; t0 = cpu_ns()) {
    iters *= 2;  // blocks of about 5 ms
  }
  printf("aes-128-gcm, %zu bytes, %ld messages per block, 40 blocks of each per round\n",
         chunk_byte_len, iters);
  for (int r = 1; r <= rounds; r++) {
    std::vector<double> t[4];
    for (int b = 0; b < 40; b++) {
      for (int w = 0; w < 4; w++) {
        double t0 = cpu_ns();
        if (!run(w, iters)) abort();
        t[w].push_back((cpu_ns() - t0) / iters);
      }
    }
    double m[4];
    for (int w = 0; w < 4; w++) {
      std::sort(t[w].begin(), t[w].end());
      m[w] = t[w][t[w].size() / 2];
    }
    printf("round %d: %s %.2f, %s %.2f, %s %.2f, %s %.2f ns; column/bssl %.3f, column/inline %.3f, "
           "inline/bssl %.3f, col-fn/column %.3f\n",
           r, names[0], m[0], names[1], m[1], names[2], m[2], names[3], m[3], m[0] / m[2],
           m[1] / m[2], m[0] / m[1], m[2] / m[3]);
  }
  return 0;
}
