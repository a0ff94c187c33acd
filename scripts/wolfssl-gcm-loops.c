/* Why this exists: the wolfssl column's aes-128-gcm@8192 crosscheck read ours/oracle 0.976
 * (0.970-0.984) at an idle hour (2026-11-29 04:40 UTC) where the same cell read 0.989 an hour
 * before. wolfcrypt/benchmark encrypts out of place (bench_plain -> bench_cipher); the column
 * (crates/impls/src/wolfssl/modes.rs) encrypts in place. This program times both calls of
 * wc_AesGcmEncrypt (12-byte IV, 13 bytes of AAD, 16-byte tag, key set once) against the
 * installed libwolfssl, alternating blocks of about 5 ms on the thread's CPU clock, 64-byte
 * aligned buffers, and prints per round the median ns per message and in-place/out-of-place
 * as a rate ratio (what the crosscheck should read if nothing else differs).
 *
 * build: cc -O2 -include /usr/include/wolfssl/options.h -o wolfssl-gcm-loops \
 *          scripts/wolfssl-gcm-loops.c -lwolfssl
 * run:   taskset -c 1 ./wolfssl-gcm-loops BYTES ROUNDS
 */
#include <wolfssl/wolfcrypt/aes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static Aes aes;
static unsigned char *plain, *cipher, iv[12], aad[13], tag[16];
static word32 len;

/* ns per message over n messages, in place (0) or out of place as the benchmark (1). */
static double timed(int out_of_place, long n) {
  unsigned char *dst = out_of_place ? cipher : plain;
  double t0 = cpu_ns();
  for (long i = 0; i < n; i++) {
    if (wc_AesGcmEncrypt(&aes, dst, plain, len, iv, 12, tag, 16, aad, 13) != 0) abort();
  }
  return (cpu_ns() - t0) / n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: wolfssl-gcm-loops BYTES ROUNDS\n");
    return 2;
  }
  len = atoi(argv[1]);
  int rounds = atoi(argv[2]);
  static const unsigned char key[16];
  plain = aligned_alloc(64, (len + 63) / 64 * 64);
  cipher = aligned_alloc(64, (len + 63) / 64 * 64);
  memset(plain, 7, len);
  if (wc_AesInit(&aes, NULL, INVALID_DEVID) != 0 || wc_AesGcmSetKey(&aes, key, 16) != 0) abort();
  long n = 1;
  while (timed(1, n) * n < 5e6) n *= 2; /* blocks of about 5 ms */
  printf("aes-128-gcm, %u bytes, %ld messages per block, 40 blocks of each per round\n", len, n);
  for (int r = 1; r <= rounds; r++) {
    double t[2][40];
    for (int b = 0; b < 40; b++) {
      t[0][b] = timed(0, n);
      t[1][b] = timed(1, n);
    }
    qsort(t[0], 40, sizeof(double), cmp);
    qsort(t[1], 40, sizeof(double), cmp);
    printf("round %d: in place %.1f ns, out of place %.1f ns; in/out rate %.3f\n", r, t[0][20],
           t[1][20], t[1][20] / t[0][20]);
  }
  return 0;
}
