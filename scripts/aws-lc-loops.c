/* Why this exists: two of `bssl speed`'s loops (AWS-LC tool/speed.cc) make calls the `aws-lc`
 * column's loops do not, and the crosscheck (docs/experiments/crosscheck.md) declares each as
 * a difference with the band of ratios this program measured:
 *   sha256: SpeedHashChunk reuses one EVP_MD_CTX (EVP_DigestInit_ex, Update, Final_ex); the
 *           column calls EVP_Digest, as `openssl speed` does, whose context is made and cleaned
 *           up in every call;
 *   gcm:    SpeedEvpGenericChunk writes to a second buffer and reads the tag out with
 *           EVP_CTRL_GCM_GET_TAG after every message; the column encrypts in place and makes
 *           no tag read, as `openssl speed -aead` does.
 * Both sequences of a mode run against one libcrypto, alternating, timed on the thread's CPU
 * clock (others' time left out); it prints ours/bssl as a rate ratio per round.
 *
 * build: cc -O2 -I AWS_LC_TREE/include -o aws-lc-loops scripts/aws-lc-loops.c \
 *          LIBDIR/libcrypto.so -Wl,-rpath,LIBDIR
 * run:   taskset -c 1 ./aws-lc-loops sha256|gcm BYTES ROUNDS
 */
#include <openssl/digest.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static unsigned char *buf, *out;
static int len;
static EVP_CIPHER_CTX *cctx;
static EVP_MD_CTX *mctx;

/* One message the column's way (bssl = 0) or bssl speed's way (bssl = 1). */
static int sha256(int bssl) {
  unsigned char md[32];
  unsigned mdlen;
  if (!bssl) {
    return EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL);
  }
  return EVP_DigestInit_ex(mctx, EVP_sha256(), NULL) && EVP_DigestUpdate(mctx, buf, len) &&
         EVP_DigestFinal_ex(mctx, md, &mdlen);
}

static int gcm(int bssl) {
  static const unsigned char nonce[12], aad[13];
  unsigned char tag[16];
  unsigned char *dst = bssl ? out : buf;
  int outl;
  int ok = EVP_EncryptInit_ex(cctx, NULL, NULL, NULL, nonce) &&
           EVP_EncryptUpdate(cctx, NULL, &outl, aad, 13) &&
           EVP_EncryptUpdate(cctx, dst, &outl, buf, len) &&
           EVP_EncryptFinal_ex(cctx, dst + outl, &outl);
  return ok && (!bssl || EVP_CIPHER_CTX_ctrl(cctx, EVP_CTRL_GCM_GET_TAG, 16, tag));
}

/* CPU ns per message over n messages. */
static double timed(int (*f)(int), int bssl, long n) {
  double t0 = cpu_ns();
  for (long i = 0; i < n; i++) {
    if (!f(bssl)) {
      abort();
    }
  }
  return (cpu_ns() - t0) / n;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: aws-lc-loops sha256|gcm BYTES ROUNDS\n");
    return 2;
  }
  int (*f)(int) = strcmp(argv[1], "gcm") == 0 ? gcm : sha256;
  len = atoi(argv[2]);
  int rounds = atoi(argv[3]);
  static const unsigned char key[16];
  buf = calloc(len + 32, 1);
  out = calloc(len + 32, 1);
  cctx = EVP_CIPHER_CTX_new();
  mctx = EVP_MD_CTX_new();
  if (!EVP_EncryptInit_ex(cctx, EVP_aes_128_gcm(), NULL, key, NULL)) {
    abort();
  }
  long n = 1000;
  while (timed(f, 1, n) * n < 2e8) { /* about 0.2 s per timing */
    n *= 2;
  }
  printf("%s, %d bytes, %ld messages per timing\n", argv[1], len, n);
  for (int r = 0; r < rounds; r++) {
    double ours = timed(f, 0, n), bssl = timed(f, 1, n);
    printf("round %d: column's calls %.2f ns, bssl speed's %.2f ns: ours/bssl rate %.3f\n",
           r + 1, ours, bssl, bssl / ours);
  }
  return 0;
}
