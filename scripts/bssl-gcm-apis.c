// Benchmark (not a test): BoringSSL's AES-128-GCM (8192 bytes, or SIZE) through EVP_AEAD_CTX_seal_scatter
// (the call bssl_bench times) against the EVP_CIPHER sequence openssl speed makes (the one
// cryptospeed's boringssl column times), one loop each, alternately, in one plain C process, so
// the two APIs' own difference can be told apart from the harnesses' (docs/PERFORMANCE.md).
//
//   B=$(ls -d ~/.cargo/registry/src/*/boring-sys-5.4.0/deps/boringssl)
//   L=$(ls -d ~/.cache/cryptospeed/variants/boringssl-*[0-9a-f])  # variant build-library boringssl
//   gcc -O2 -I$B/include scripts/bssl-gcm-apis.c -L$L -lcrypto -Wl,-rpath,$L -o /tmp/gcm-apis
//   /tmp/gcm-apis [SIZE]
#include <openssl/aead.h>
#include <openssl/cipher.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc, char **argv){
  int size = argc > 1 ? atoi(argv[1]) : 8192;
  EVP_AEAD_CTX actx; uint8_t key[16]={0}, nonce[12]={0}, ad[13]={0}, tag[16];
  EVP_AEAD_CTX_init(&actx, EVP_aead_aes_128_gcm(), key, 16, 16, NULL);
  EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
  EVP_CipherInit_ex(c, EVP_aes_128_gcm(), NULL, key, nonce, 1);
  uint8_t *in = aligned_alloc(64, size+64), *out = aligned_alloc(64, size+64);
  memset(in, 1, size);
  size_t tl; int ol;
  for (int round = 0; round < 5; round++) {
    int n = (int)(1.6e9 / (size + 1000)); double t0 = now();
    for (int i = 0; i < n; i++) EVP_AEAD_CTX_seal_scatter(&actx, out, tag, &tl, 16, nonce, 12, in, size, NULL, 0, ad, 13);
    double a = (now()-t0)/n; t0 = now();
    for (int i = 0; i < n; i++) {
      EVP_CipherInit_ex(c, NULL, NULL, NULL, nonce, 1);
      EVP_EncryptUpdate(c, NULL, &ol, ad, 13);
      EVP_EncryptUpdate(c, in, &ol, in, size);
      EVP_EncryptFinal_ex(c, in + ol, &ol);
    }
    double e = (now()-t0)/n;
    printf("EVP_AEAD seal %.1f ns   EVP_CIPHER (speed's calls) %.1f ns   ratio %.3f\n", a, e, e / a);
  }
}
