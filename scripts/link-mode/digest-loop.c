/* EVP_Digest of a message in a loop, as openssl speed and both cryptospeed workers call it: the
   same source linked statically (libcrypto.a) and dynamically (a shared libcrypto), best of 7. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  const char*alg=argc>1?argv[1]:"SHA256"; size_t n=argc>2?atoi(argv[2]):16;
  EVP_MD*md=EVP_MD_fetch(NULL,alg,NULL); unsigned char msg[8192]={1},out[64]; unsigned len;
  long iters=2000000; double best=1e9;
  for(int r=0;r<7;r++){double t0=now();for(long i=0;i<iters;i++) if(EVP_Digest(msg,n,out,&len,md,NULL)!=1) return 1; double t=now()-t0; if(t<best)best=t;}
  printf("%s %zu: %.1f MB/s\n",alg,n,n*iters/best/1e6); return 0;}
