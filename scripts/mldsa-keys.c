// Benchmark (not a test): ML-DSA-65 signing rate per key, to tell key-to-key variation from the
// rejection loop's own (docs/experiments/crosscheck.md, "ML-DSA-65 signing read fast").
//   O=<the 3.5 variant oracle's source tree, with libcrypto.a>   (cryptospeed crosscheck --setup-only)
//   gcc -O2 -I$O/include scripts/mldsa-keys.c $O/libcrypto.a -lpthread -ldl -o /tmp/mldsa-keys
//   taskset -c 1 /tmp/mldsa-keys KEYS SIGNS_PER_VISIT ROUNDS     (2026-11-29: 8 500 40)
/* Per-key ML-DSA-65 signing rate: K fresh keys, each signing N 32-byte zero messages (hedged),
 * keys visited round-robin in R rounds so the host's drift falls on every key alike. Prints per
 * key: signs/s over thread CPU time, summed over rounds. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int K=atoi(argv[1]),N=atoi(argv[2]),R=atoi(argv[3]);
  EVP_PKEY**keys=calloc(K,sizeof*keys); EVP_PKEY_CTX**ctx=calloc(K,sizeof*ctx);
  EVP_SIGNATURE*alg=EVP_SIGNATURE_fetch(NULL,"ML-DSA-65",NULL);
  double*t=calloc(K,sizeof*t);
  for(int k=0;k<K;k++){EVP_PKEY_CTX*g=EVP_PKEY_CTX_new_from_name(NULL,"ML-DSA-65",NULL);
    EVP_PKEY_keygen_init(g); EVP_PKEY_generate(g,&keys[k]); EVP_PKEY_CTX_free(g);}
  unsigned char msg[32]={0},sig[4000];
  for(int r=0;r<R;r++) for(int k=0;k<K;k++){
    EVP_PKEY_CTX*c=EVP_PKEY_CTX_new_from_pkey(NULL,keys[k],NULL);
    EVP_PKEY_sign_message_init(c,alg,NULL);
    double t0=now();
    for(int i=0;i<N;i++){size_t l=sizeof sig; if(EVP_PKEY_sign(c,sig,&l,msg,32)!=1){fprintf(stderr,"sign failed\n");return 1;}}
    t[k]+=now()-t0; EVP_PKEY_CTX_free(c);}
  for(int k=0;k<K;k++) printf("%d %.2f\n",k,(double)N*R/t[k]);
  return 0;}
