/* Why this exists: the crosscheck's OpenSSL 3.5 oracle (`openssl speed X25519MLKEM768`,
 * apps/speed.c KEM_keygen_loop) times EVP_PKEY_keygen and EVP_PKEY_free; the column's keygen
 * also writes the client's share (EVP_PKEY_get_octet_string_param "encoded-pub-key"), as the
 * catalog defines the hybrid's keygen (docs/experiments/crosscheck.md, "SLH-DSA and the hybrid
 * beside openssl speed 3.5"). This measures what the share costs on one libcrypto: the two
 * sequences call by call, alternating (A B B A ...), each call timed on the thread's CPU clock,
 * so a host that switches speed every millisecond or two slows both alike; it prints the mean
 * and median per call of each and the ratio of rates (with share / without).
 *
 * build: cc -O2 -I OPENSSL_TREE/include -o openssl-hybrid-keygen \
 *          scripts/openssl-hybrid-keygen.c LIBDIR/libcrypto.so -Wl,-rpath,LIBDIR
 * run:   taskset -c 1 ./openssl-hybrid-keygen CALLS [ALGORITHM]   (default X25519MLKEM768)
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One key generation, with the share written when `share` is set; its CPU nanoseconds. */
static double one_call(EVP_PKEY_CTX *ctx, int share)
{
    unsigned char pub[4096];
    size_t len;
    EVP_PKEY *pkey = NULL;
    double start = cpu_ns();
    if (EVP_PKEY_keygen(ctx, &pkey) <= 0)
        exit(fprintf(stderr, "EVP_PKEY_keygen failed\n"));
    if (share && !EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY,
                                                  pub, sizeof pub, &len))
        exit(fprintf(stderr, "no encoded-pub-key\n"));
    EVP_PKEY_free(pkey);
    return cpu_ns() - start;
}

static void summary(const char *name, double *ns, int n, double *mean)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += ns[i];
    qsort(ns, n, sizeof *ns, cmp);
    *mean = sum / n;
    printf("%-16s mean %.1f ns, median %.1f ns over %d calls\n", name, *mean, ns[n / 2], n);
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 20000;
    const char *alg = argc > 2 ? argv[2] : "X25519MLKEM768";
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, alg, NULL);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) <= 0)
        return fprintf(stderr, "no %s key generation in this libcrypto\n", alg), 1;
    double *bare = malloc(sizeof *bare * calls), *with = malloc(sizeof *with * calls);
    for (int i = 0; i < 200; i++)
        one_call(ctx, i & 1);
    for (int i = 0; i < calls; i++) {
        int first = (i >> 1) & 1; /* A B B A: neither sequence always first */
        double a = one_call(ctx, first), b = one_call(ctx, !first);
        bare[i] = first ? b : a;
        with[i] = first ? a : b;
    }
    double mean_bare, mean_with;
    summary("keygen", bare, calls, &mean_bare);
    summary("keygen + share", with, calls, &mean_with);
    printf("rate with share / without: %.4f (means), %.4f (medians)\n", mean_bare / mean_with,
           bare[calls / 2] / with[calls / 2]);
    return 0;
}
