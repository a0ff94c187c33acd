/* How fast the host switches between its states (docs/experiments/host-noise.md, "How long the
 * host's states last"): MD5 of 16 bytes through EVP_Digest with the digest fetched once, timed
 * in chunks of CALLS calls back to back for CHUNKS chunks, starting when CLOCK_MONOTONIC reaches
 * START_NS (so that copies on two CPUs run together); each chunk's start and nanoseconds printed.
 * scripts/host-states builds it, pins it and reads the chunk series.
 * Usage: host-states CALLS CHUNKS START_NS */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: host-states CALLS CHUNKS START_NS\n"), 2;
    int calls = atoi(argv[1]), chunks = atoi(argv[2]);
    long long start_at = atoll(argv[3]);
    unsigned char msg[16] = {0}, out[EVP_MAX_MD_SIZE];
    unsigned int len;
    EVP_MD *md = EVP_MD_fetch(NULL, "MD5", NULL);
    long long *ns = malloc(sizeof *ns * chunks), *at = malloc(sizeof *at * chunks);
    if (md == NULL || ns == NULL || at == NULL)
        return fprintf(stderr, "host-states: no MD5 in this libcrypto\n"), 1;
    for (int i = 0; i < 10000; i++)
        EVP_Digest(msg, sizeof msg, out, &len, md, NULL);
    while (now_ns() < start_at)
        ;
    for (int c = 0; c < chunks; c++) {
        long long start = at[c] = now_ns();
        for (int i = 0; i < calls; i++)
            EVP_Digest(msg, sizeof msg, out, &len, md, NULL);
        ns[c] = now_ns() - start;
    }
    for (int c = 0; c < chunks; c++)
        printf("%lld %lld\n", at[c], ns[c]);
    return 0;
}
