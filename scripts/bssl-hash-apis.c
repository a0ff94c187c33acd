// Benchmark (not a test): BoringSSL's SHA-256 of SIZE bytes (default 16) through the one-shot
// EVP_Digest (the call cryptospeed's boringssl column times, as `openssl speed` does) against
// bssl_bench's loop body (bench/hash.cc: a ScopedEVP_MD_CTX, EVP_DigestInit_ex, EVP_DigestUpdate,
// EVP_DigestFinal_ex per iteration, the context cleaned up each time), one loop each, alternately,
// in one plain C process, so the two calls' own difference can be told apart from the harnesses'
// (docs/experiments/crosscheck.md). Times are the thread's CPU time, as bssl_bench reports.
//
//   B=$(ls -d ~/.cargo/registry/src/*/boring-sys-5.4.0/deps/boringssl)
//   L=$(ls -d ~/.cache/cryptospeed/variants/boringssl-*[0-9a-f])  # variant build-library boringssl
//   gcc -O2 -I$B/include scripts/bssl-hash-apis.c -L$L -lcrypto -Wl,-rpath,$L -o /tmp/hash-apis
//   /tmp/hash-apis [SIZE] [ROUNDS]
#include <openssl/digest.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

// bssl_bench's iteration: a fresh context on the stack, cleaned up at the end of the scope.
static int bench_body(const EVP_MD *md, const uint8_t *in, size_t n, uint8_t *out) {
  unsigned int len;
  EVP_MD_CTX ctx;
  EVP_MD_CTX_init(&ctx);
  int ok = EVP_DigestInit_ex(&ctx, md, NULL) && EVP_DigestUpdate(&ctx, in, n) &&
           EVP_DigestFinal_ex(&ctx, out, &len);
  EVP_MD_CTX_cleanup(&ctx);
  return ok;
}

int main(int argc, char **argv) {
  size_t size = argc > 1 ? (size_t)atoi(argv[1]) : 16;
  int rounds = argc > 2 ? atoi(argv[2]) : 7;
  const EVP_MD *md = EVP_sha256();
  uint8_t *in = aligned_alloc(64, size + 64), out[EVP_MAX_MD_SIZE];
  memset(in, 1, size);
  int n = (int)(4e8 / (size + 200));
  for (int round = 0; round < rounds; round++) {
    double t0 = now();
    for (int i = 0; i < n; i++)
      if (!EVP_Digest(in, size, out, NULL, md, NULL)) return 1;
    double one_shot = (now() - t0) / n;
    t0 = now();
    for (int i = 0; i < n; i++)
      if (!bench_body(md, in, size, out)) return 1;
    double body = (now() - t0) / n;
    printf("EVP_Digest %.2f ns   bssl_bench's body %.2f ns   rate ratio %.4f\n", one_shot, body,
           body / one_shot);
  }
  return 0;
}
