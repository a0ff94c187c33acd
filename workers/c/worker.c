/* The C worker: OpenSSL's libcrypto through EVP behind cryptospeed's worker protocol
 * (docs/worker-protocol.md), for builds the Rust worker cannot load. It exists for 32-bit
 * (i386) variants: a 64-bit process cannot load a 32-bit libcrypto, and Rust's i686 standard
 * library cannot be installed here, so `variant build --arch i386` compiles this file with the
 * variant's compiler and `-m32` and links it statically against the variant's own libcrypto.a.
 * Each variant then has its own worker executable, started in its own process per round.
 * A cross build (ppc64le, aarch64, riscv64) gets one too, run under qemu-user: never timed
 * there, it answers `profile` between its marker functions, which qemu's tracer finds by name.
 *
 * Like the Go worker it answers `hello` with "measures": false and "wants_vectors": true: the
 * orchestrator sends the catalog's known-answer vectors (one source, the Rust catalog), asks
 * `availability` and `verify` before any cell, and drives calibration, warm-up, bouts and the
 * stopping rule itself through `sample` requests; this worker times `iters` calls between two
 * readings of its own clocks (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, RDTSC). The timed calls
 * are those of the Rust openssl implementation (crates/impls/src/openssl): EVP_Digest one-shot,
 * EVP_MAC init+update+final (GMAC update only), EVP_Cipher in place on one keyed context, the
 * `openssl speed -aead` sequence, RSA PKCS#1 v1.5 sign/verify of 36 raw bytes and
 * encrypt/decrypt of 32, and (pkey.h) DSA, ECDSA and EdDSA sign/verify of 20 bytes and ECDH
 * and FFDH derive. Families it does not time (ML-KEM, ML-DSA, SLH-DSA …) are answered
 * "unavailable" with that reason, never timed.
 *
 * Test hooks as in the Rust worker: CRYPTOSPEED_FAULT=kat:ID fails ID's known-answer test,
 * crash:ID dies of SIGSEGV when ID is sampled. CRYPTOSPEED_LAYOUT=SEED[:buffers] varies the heap
 * and (with :buffers) each buffer's place in its page, as crates/impls/src/buffer.rs does. */
#define _GNU_SOURCE
#include "json.h"
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define PROTOCOL_VERSION 2

typedef struct {
    unsigned char *p;
    size_t n;
} bytes;

typedef struct {
    char kind[24];
    char digest[32]; /* the hash a published (EC)DSA signature is over */
    bytes key, iv, msg, aad, out, tag, public_;
    char *source;
} kat;

typedef struct {
    char *id, *family, *name;
    size_t key_len, iv_len, tag_len, out_len;
    unsigned bits;
    bytes private_key;
    size_t nkats;
    kat *kats;
    /* verdicts, computed once */
    int avail_done;
    char *unavailable; /* NULL: available */
    int kat_done;
    char *kat_error; /* NULL: passed */
} prim;

static prim *catalog;
static size_t ncatalog;
static int have_vectors;
static const char *fault_kat = "", *fault_crash = "";
static size_t page_offset = (size_t)-1;
static char last_error[512];

/* ---------------------------------------------------------------------------------------- */
/* helpers */

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

static char *fmt(const char *f, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(tmp, sizeof tmp, f, ap);
    va_end(ap);
    return xstrdup(tmp);
}

/* The library's error queue as text (and cleared). */
static const char *ssl_errors(void) {
    unsigned long e;
    size_t used = 0;
    last_error[0] = '\0';
    while ((e = ERR_get_error()) != 0) {
        char one[256];
        ERR_error_string_n(e, one, sizeof one);
        if (used + strlen(one) + 3 < sizeof last_error) {
            used += (size_t)snprintf(last_error + used, sizeof last_error - used, "%s%s",
                                     used ? "; " : "", one);
        }
    }
    if (!used) snprintf(last_error, sizeof last_error, "no error reported");
    return last_error;
}

static int unhex(const char *s, bytes *out) {
    size_t n = strlen(s), i;
    out->n = n / 2;
    out->p = xrealloc(NULL, out->n + 1);
    if (n % 2) return 0;
    for (i = 0; i < out->n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        out->p[i] = (unsigned char)v;
    }
    return 1;
}

static char *tohex(const unsigned char *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char *s = xrealloc(NULL, 2 * n + 1);
    size_t i;
    for (i = 0; i < n; i++) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    s[2 * n] = '\0';
    return s;
}

static char *mismatch(const char *what, const unsigned char *got, size_t gn,
                      const unsigned char *want, size_t wn) {
    char *g = tohex(got, gn < 64 ? gn : 64), *w = tohex(want, wn < 64 ? wn : 64);
    char *r = fmt("%s: got %s, expected %s", what, g, w);
    free(g);
    free(w);
    return r;
}

/* The timing key and message pattern of the Rust implementation. */
static void timing_key(unsigned char *k, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) k[i] = (unsigned char)(0x12 + 0x22 * i);
}

/* A buffer of n usable bytes (plus slack) starting misalign bytes past a 64-byte boundary, or,
 * with CRYPTOSPEED_LAYOUT=SEED:buffers, past the page offset the seed chose; filled with the
 * Rust AlignedBuffer's pattern. Never freed (cells live as long as the worker). */
static unsigned char *aligned(size_t n, size_t slack, size_t misalign) {
    size_t align = page_offset == (size_t)-1 ? 64 : 4096;
    size_t offset = page_offset == (size_t)-1 ? 0 : page_offset;
    size_t total = n + slack + align + offset + misalign, i;
    unsigned char *raw = xrealloc(NULL, total);
    uintptr_t base = (uintptr_t)raw;
    for (i = 0; i < total; i++) raw[i] = (unsigned char)(i * 13 + 7);
    return raw + (align - base % align) % align + offset + misalign;
}

static void vary_layout(void) {
    const char *spec = getenv("CRYPTOSPEED_LAYOUT");
    unsigned long long seed, mixed;
    size_t heap;
    char *end;
    if (!spec || !*spec) return;
    seed = strtoull(spec, &end, 10);
    mixed = seed * 0x9E3779B97F4A7C15ULL;
    if (strcmp(end, ":buffers") == 0) page_offset = (size_t)(((mixed >> 32) % 64) * 64);
    heap = (size_t)(((mixed >> 16) % 16) * 4096);
    if (heap) memset(xrealloc(NULL, heap), 1, heap); /* kept for the life of the process */
}

static inline uint64_t rdtsc(void) {
#if defined(__i386__) || defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static prim *find(const char *id) {
    size_t i;
    for (i = 0; i < ncatalog; i++)
        if (strcmp(catalog[i].id, id) == 0) return &catalog[i];
    return NULL;
}

static int is(const prim *p, const char *family) { return strcmp(p->family, family) == 0; }

/* ---------------------------------------------------------------------------------------- */
/* EVP set-up, as crates/impls/src/openssl/symmetric.rs does it */

static EVP_CIPHER_CTX *cipher_ctx(const char *name, const unsigned char *key, size_t key_len,
                                  const unsigned char *iv, size_t iv_len, int enc, char **err) {
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, NULL);
    EVP_CIPHER_CTX *ctx;
    if (!c) {
        *err = fmt("no provider offers cipher %s (%s)", name, ssl_errors());
        return NULL;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) != 1) {
        *err = fmt("EVP_CipherInit_ex(%s) failed: %s", name, ssl_errors());
        goto fail;
    }
    if (EVP_CIPHER_CTX_set_key_length(ctx, (int)key_len) != 1) {
        *err = fmt("%s does not take a %u-byte key: %s", name, (unsigned)key_len, ssl_errors());
        goto fail;
    }
    if (EVP_CipherInit_ex(ctx, NULL, NULL, key, iv_len ? iv : NULL, enc) != 1) {
        *err = fmt("setting the %s key failed: %s", name, ssl_errors());
        goto fail;
    }
    EVP_CIPHER_free(c);
    return ctx;
fail:
    EVP_CIPHER_free(c);
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
}

static EVP_MAC_CTX *mac_ctx(const prim *p, const unsigned char *key, size_t key_len,
                            const unsigned char *iv, size_t iv_len, char **err) {
    const char *mac_name = is(p, "hmac") ? "HMAC" : is(p, "cmac") ? "CMAC" : "GMAC";
    const char *param = is(p, "hmac") ? "digest" : "cipher";
    OSSL_PARAM params[3];
    size_t k = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, mac_name, NULL);
    EVP_MAC_CTX *ctx;
    if (!mac) {
        *err = fmt("no provider offers %s (%s)", mac_name, ssl_errors());
        return NULL;
    }
    params[k++] = OSSL_PARAM_construct_utf8_string(param, p->name, 0);
    if (iv_len) params[k++] = OSSL_PARAM_construct_octet_string("iv", (void *)iv, iv_len);
    params[k] = OSSL_PARAM_construct_end();
    ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (!ctx || EVP_MAC_init(ctx, key, key_len, params) != 1) {
        *err = fmt("%s with %s cannot be keyed: %s", mac_name, p->name, ssl_errors());
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static const unsigned char AAD13[13] = {0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
                                        0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc};

/* CCM, OCB and GCM-SIV need their ctrl calls in a set order, as in the Rust openssl worker
 * (crates/impls/src/openssl/ae_modes.rs, whose calls these are): the IV length and (CCM, OCB)
 * the tag length before the key, the expected tag after the key when decrypting, CCM's total
 * message length before the AAD. Each message is keyed afresh, as openssl speed 3.5's
 * EVP_Update_loop_aead_enc/_dec do. */
enum ae_mode { AE_NONE, AE_CCM, AE_OCB, AE_GCM_SIV };

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static enum ae_mode ae_mode_of(const char *name) {
    if (ends_with(name, "-CCM")) return AE_CCM;
    if (ends_with(name, "-OCB")) return AE_OCB;
    if (ends_with(name, "-GCM-SIV")) return AE_GCM_SIV;
    return AE_NONE;
}

/* A context for the cipher in one direction, with no key or IV yet. */
static EVP_CIPHER_CTX *ae_ctx(const EVP_CIPHER *cipher, int enc) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx && EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) == 1) return ctx;
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
}

/* EVP_EncryptUpdate or EVP_DecryptUpdate, as the Rust worker calls them, by direction. */
static int ae_update(EVP_CIPHER_CTX *ctx, int enc, unsigned char *out, int *outl,
                     const unsigned char *in, size_t n) {
    return (enc ? EVP_EncryptUpdate(ctx, out, outl, in, (int)n)
                : EVP_DecryptUpdate(ctx, out, outl, in, (int)n)) == 1;
}

static int ae_final(EVP_CIPHER_CTX *ctx, int enc, unsigned char *out, int *outl) {
    return (enc ? EVP_EncryptFinal_ex(ctx, out, outl) : EVP_DecryptFinal_ex(ctx, out, outl)) == 1;
}

/* Arms a context from ae_ctx for one message of len bytes; tag is the expected tag when
 * decrypting, NULL when encrypting. */
static int ae_begin(EVP_CIPHER_CTX *ctx, enum ae_mode mode, const unsigned char *key,
                    const unsigned char *nonce, size_t nonce_n, const unsigned char *tag,
                    size_t tag_n, const unsigned char *aad, size_t aad_n, size_t len) {
    int outl = 0, enc = tag == NULL;
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)nonce_n, NULL) == 1 &&
           (mode == AE_GCM_SIV ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_n, NULL) == 1) &&
           EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, -1) == 1 &&
           (!tag || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_n, (void *)tag) == 1) &&
           (mode != AE_CCM || ae_update(ctx, enc, NULL, &outl, NULL, len)) &&
           (aad_n == 0 || ae_update(ctx, enc, NULL, &outl, aad, aad_n));
}

/* The context an AEAD's known-answer test starts from: an AE mode's keyless, armed by
 * ae_begin; any other AEAD's keyed with the nonce. */
static EVP_CIPHER_CTX *aead_ctx(const prim *p, enum ae_mode mode, const bytes *key,
                                const bytes *nonce, int enc, char **err) {
    EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *ctx;
    if (!mode) return cipher_ctx(p->name, key->p, key->n, nonce->p, nonce->n, enc, err);
    if (!(cipher = EVP_CIPHER_fetch(NULL, p->name, NULL))) {
        *err = fmt("no provider offers cipher %s (%s)", p->name, ssl_errors());
        return NULL;
    }
    ctx = ae_ctx(cipher, enc);
    EVP_CIPHER_free(cipher);
    if (!ctx) *err = fmt("EVP_CipherInit_ex(%s) failed: %s", p->name, ssl_errors());
    return ctx;
}

/* Seals pt (aad may be empty): ciphertext into ct (room for pt.n + 32), a tag_n-byte tag into
 * tag. */
static int aead_seal(const prim *p, const bytes *key, const bytes *nonce, const unsigned char *aad,
                     size_t aad_n, const unsigned char *pt, size_t n, unsigned char *ct,
                     size_t *ct_n, unsigned char *tag, size_t tag_n, char **err) {
    int l1 = 0, l2 = 0, ok;
    enum ae_mode mode = ae_mode_of(p->name);
    EVP_CIPHER_CTX *ctx = aead_ctx(p, mode, key, nonce, 1, err);
    if (!ctx) return 0;
    ok = (mode ? ae_begin(ctx, mode, key->p, nonce->p, nonce->n, NULL, tag_n, aad, aad_n, n)
               : aad_n == 0 || EVP_EncryptUpdate(ctx, NULL, &l1, aad, (int)aad_n) == 1) &&
         EVP_EncryptUpdate(ctx, ct, &l1, pt, (int)n) == 1 &&
         EVP_EncryptFinal_ex(ctx, ct + l1, &l2) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tag_n, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        *err = fmt("%s encryption failed: %s", p->name, ssl_errors());
        return 0;
    }
    *ct_n = (size_t)(l1 + l2);
    return 1;
}

/* 1: opened, 0: the tag did not authenticate, -1: error (in *err). CCM says a tag is wrong in
 * the update, the others in final. */
static int aead_open(const prim *p, const bytes *key, const bytes *nonce, const bytes *aad,
                     const bytes *ct, const unsigned char *tag, size_t tag_n, unsigned char *out,
                     size_t *out_n, char **err) {
    int l1 = 0, l2 = 0, r;
    unsigned char t[64];
    enum ae_mode mode = ae_mode_of(p->name);
    EVP_CIPHER_CTX *ctx = aead_ctx(p, mode, key, nonce, 0, err);
    if (!ctx) return -1;
    memcpy(t, tag, tag_n < sizeof t ? tag_n : sizeof t);
    if (mode ? !ae_begin(ctx, mode, key->p, nonce->p, nonce->n, t, tag_n, aad->p, aad->n, ct->n)
             : EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_n, t) != 1 ||
                   !(aad->n == 0 || EVP_DecryptUpdate(ctx, NULL, &l1, aad->p, (int)aad->n) == 1)) {
        *err = fmt("%s decryption failed: %s", p->name, ssl_errors());
        EVP_CIPHER_CTX_free(ctx);
        return -1;
    }
    if (EVP_DecryptUpdate(ctx, out, &l1, ct->p, (int)ct->n) != 1) {
        r = mode ? 0 : -1;
        if (r < 0) *err = fmt("%s decryption failed: %s", p->name, ssl_errors());
    } else {
        r = EVP_DecryptFinal_ex(ctx, out + l1, &l2) == 1;
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    *out_n = (size_t)(l1 + l2);
    return r;
}

/* The shipped PKCS#8 key (RSA: the timing key). */
static EVP_PKEY *private_key(const prim *p, char **err) {
    const unsigned char *d = p->private_key.p;
    EVP_PKEY *k;
    if (!p->private_key.n) {
        *err = fmt("no key was sent for %s", p->id);
        return NULL;
    }
    k = d2i_AutoPrivateKey(NULL, &d, (long)p->private_key.n);
    if (!k) *err = fmt("the shipped %s key does not load: %s", p->id, ssl_errors());
    return k;
}

enum pk_op { PK_SIGN, PK_VERIFY, PK_ENCRYPT, PK_DECRYPT, PK_DERIVE };

/* A context for op with k; an RSA key's gets PKCS#1 v1.5 padding, as openssl speed's. */
static EVP_PKEY_CTX *pkey_ctx(EVP_PKEY *k, enum pk_op op, char **err) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
    int ok = ctx != NULL;
    if (ok) {
        switch (op) {
        case PK_SIGN: ok = EVP_PKEY_sign_init(ctx) == 1; break;
        case PK_VERIFY: ok = EVP_PKEY_verify_init(ctx) == 1; break;
        case PK_ENCRYPT: ok = EVP_PKEY_encrypt_init(ctx) == 1; break;
        case PK_DECRYPT: ok = EVP_PKEY_decrypt_init(ctx) == 1; break;
        case PK_DERIVE: ok = EVP_PKEY_derive_init(ctx) == 1; break;
        }
    }
    ok = ok && (!EVP_PKEY_is_a(k, "RSA") ||
                EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1);
    if (!ok) {
        *err = fmt("cannot set a public-key context up: %s", ssl_errors());
        EVP_PKEY_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* ---------------------------------------------------------------------------------------- */
/* RSA checked outside the library: s^e mod n with a little schoolbook arithmetic */

typedef struct {
    uint32_t *w; /* little-endian words */
    size_t n;
} num;

static num num_from(const unsigned char *be, size_t len, size_t words) {
    num x;
    size_t i;
    x.n = words;
    x.w = xrealloc(NULL, words * sizeof *x.w);
    memset(x.w, 0, words * sizeof *x.w);
    for (i = 0; i < len; i++) x.w[i / 4] |= (uint32_t)be[len - 1 - i] << (8 * (i % 4));
    return x;
}

static int num_ge(const num *a, const num *b) {
    size_t i = a->n;
    while (i--) {
        if (a->w[i] != b->w[i]) return a->w[i] > b->w[i];
    }
    return 1;
}

static void num_sub(num *a, const num *b) {
    uint64_t borrow = 0;
    size_t i;
    for (i = 0; i < a->n; i++) {
        uint64_t d = (uint64_t)a->w[i] - b->w[i] - borrow;
        a->w[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
    }
}

static void num_add(num *a, const num *b) {
    uint64_t carry = 0;
    size_t i;
    for (i = 0; i < a->n; i++) {
        uint64_t s = (uint64_t)a->w[i] + b->w[i] + carry;
        a->w[i] = (uint32_t)s;
        carry = s >> 32;
    }
}

static void num_shl1(num *a) {
    uint32_t carry = 0;
    size_t i;
    for (i = 0; i < a->n; i++) {
        uint32_t next = a->w[i] >> 31;
        a->w[i] = (a->w[i] << 1) | carry;
        carry = next;
    }
}

/* r = a*b mod m (all with one spare word, a and b < m), bit by bit. */
static void num_mulmod(num *r, const num *a, const num *b, const num *m) {
    size_t bit = b->n * 32;
    memset(r->w, 0, r->n * sizeof *r->w);
    while (bit--) {
        num_shl1(r);
        if (num_ge(r, m)) num_sub(r, m);
        if ((b->w[bit / 32] >> (bit % 32)) & 1) {
            num_add(r, a);
            if (num_ge(r, m)) num_sub(r, m);
        }
    }
}

/* base^exp mod m (base < m, both of m's size), square and multiply from exp's top bit. */
static num num_modexp(const num *base, const num *exp, const num *m) {
    num acc = num_from((const unsigned char *)"\x01", 1, m->n), tmp = num_from(NULL, 0, m->n), t;
    size_t i;
    for (i = exp->n * 32; i--;) {
        num_mulmod(&tmp, &acc, &acc, m);
        t = acc, acc = tmp, tmp = t;
        if ((exp->w[i / 32] >> (i % 32)) & 1) {
            num_mulmod(&tmp, &acc, base, m);
            t = acc, acc = tmp, tmp = t;
        }
    }
    free(tmp.w);
    return acc;
}

static int bn_param(EVP_PKEY *k, const char *name, unsigned char *out, size_t len) {
    BIGNUM *bn = NULL;
    int ok = EVP_PKEY_get_bn_param(k, name, &bn) == 1 && BN_bn2binpad(bn, out, (int)len) > 0;
    BN_free(bn);
    return ok;
}

/* One signature or verification on a context set up by pkey_ctx (RSA here, the rest in pkey.h). */
static int sign_with(EVP_PKEY_CTX *ctx, const unsigned char *tbs, size_t n, unsigned char *sig,
                     size_t *sig_n) {
    return EVP_PKEY_sign(ctx, sig, sig_n, tbs, n) == 1;
}

static int verify_with(EVP_PKEY_CTX *ctx, const unsigned char *tbs, size_t n,
                       const unsigned char *sig, size_t sig_n) {
    int r = EVP_PKEY_verify(ctx, sig, sig_n, tbs, n) == 1;
    ERR_clear_error();
    return r;
}

/* As the other workers check RSA (no published vector per key size): s^e mod n, computed here
 * outside libcrypto, is the PKCS#1 v1.5 block of the 36-byte message; the signature verifies
 * and a corrupted one does not; PKCS#1 v1.5 encryption round-trips. */
static char *rsa_cross_check(const prim *p) {
    char *err = NULL;
    EVP_PKEY *k = private_key(p, &err);
    EVP_PKEY_CTX *s = NULL, *v = NULL, *e = NULL, *d = NULL;
    unsigned char tbs[36], sig[2048], em[2048], nb[2048], eb[8], ct[2048], pt[2048];
    unsigned char msg[32];
    size_t sig_n = sizeof sig, klen, words, i, ct_n = sizeof ct, pt_n = sizeof pt;
    num n, ev, base, acc;
    if (!k) return err;
    klen = (size_t)EVP_PKEY_get_size(k);
    if (klen > sizeof sig || klen < 48) {
        EVP_PKEY_free(k);
        return fmt("unexpected RSA modulus of %u bytes", (unsigned)klen);
    }
    for (i = 0; i < 36; i++) tbs[i] = (unsigned char)i;
    if (!(s = pkey_ctx(k, PK_SIGN, &err))) goto done;
    if (!sign_with(s, tbs, 36, sig, &sig_n)) {
        err = fmt("EVP_PKEY_sign failed: %s", ssl_errors());
        goto done;
    }
    if (!bn_param(k, "n", nb, klen) || !bn_param(k, "e", eb, sizeof eb)) {
        err = fmt("cannot read the key's n and e: %s", ssl_errors());
        goto done;
    }
    words = klen / 4 + 2;
    n = num_from(nb, klen, words);
    ev = num_from(eb, sizeof eb, 3);
    base = num_from(sig, sig_n, words);
    acc = num_modexp(&base, &ev, &n);
    em[0] = 0, em[1] = 1;
    memset(em + 2, 0xff, klen - 3 - 36);
    em[klen - 37] = 0;
    memcpy(em + klen - 36, tbs, 36);
    {
        num want = num_from(em, klen, words);
        int same = memcmp(want.w, acc.w, words * sizeof *acc.w) == 0;
        free(want.w);
        free(n.w), free(ev.w), free(base.w), free(acc.w);
        if (!same) {
            err = fmt("s^e mod n is not the PKCS#1 v1.5 encoding of the message");
            goto done;
        }
    }
    if (!(v = pkey_ctx(k, PK_VERIFY, &err))) goto done;
    if (!verify_with(v, tbs, 36, sig, sig_n)) {
        err = fmt("own signature rejected");
        goto done;
    }
    sig[sig_n / 2] ^= 0x40;
    if (verify_with(v, tbs, 36, sig, sig_n)) {
        err = fmt("corrupted signature accepted");
        goto done;
    }
    memset(msg, 0x5a, sizeof msg);
    if (!(e = pkey_ctx(k, PK_ENCRYPT, &err)) || !(d = pkey_ctx(k, PK_DECRYPT, &err))) goto done;
    if (EVP_PKEY_encrypt(e, ct, &ct_n, msg, sizeof msg) <= 0 ||
        EVP_PKEY_decrypt(d, pt, &pt_n, ct, ct_n) <= 0) {
        err = fmt("encryption round trip failed: %s", ssl_errors());
        goto done;
    }
    if (pt_n != sizeof msg || memcmp(pt, msg, sizeof msg) != 0)
        err = fmt("decryption did not return the plaintext");
done:
    EVP_PKEY_CTX_free(s);
    EVP_PKEY_CTX_free(v);
    EVP_PKEY_CTX_free(e);
    EVP_PKEY_CTX_free(d);
    EVP_PKEY_free(k);
    return err;
}

/* ---------------------------------------------------------------------------------------- */
/* availability and known answers */

#include "pkey.h"

static const char *const TIMED_FAMILIES[] = {"digest", "xof", "hmac", "cmac",  "gmac", "cipher",
                                             "aead",   "rsa", "dsa",  "ecdsa", "eddsa", "ecdh", "ffdh"};

static char *probe(const prim *p) {
    char *err = NULL;
    size_t i;
    int timed = 0;
    unsigned char key[64], iv[32] = {0};
    for (i = 0; i < sizeof TIMED_FAMILIES / sizeof *TIMED_FAMILIES; i++)
        if (is(p, TIMED_FAMILIES[i])) timed = 1;
    if (!timed)
        return fmt("the C worker times the EVP families digest, xof, hmac, cmac, gmac, "
                   "cipher, aead, rsa, dsa, ecdsa, eddsa, ecdh and ffdh; not %s",
                   p->family);
    memset(key, 1, sizeof key);
    if (is(p, "digest") || is(p, "xof")) {
        EVP_MD *md = EVP_MD_fetch(NULL, p->name, NULL);
        if (!md) err = fmt("no provider offers digest %s (%s)", p->name, ssl_errors());
        EVP_MD_free(md);
    } else if (is(p, "cipher") || is(p, "aead")) {
        EVP_CIPHER_CTX *c;
        if (p->key_len > sizeof key || p->iv_len > sizeof iv)
            return fmt("%s: key or IV longer than this worker handles", p->id);
        c = cipher_ctx(p->name, key, p->key_len, iv, p->iv_len, 1, &err);
        EVP_CIPHER_CTX_free(c);
    } else if (is(p, "hmac") || is(p, "cmac") || is(p, "gmac")) {
        EVP_MAC_CTX *m = mac_ctx(p, key, 16, iv, is(p, "gmac") ? 12 : 0, &err);
        EVP_MAC_CTX_free(m);
    } else {
        EVP_PKEY *k = timing_pkey(p, &err);
        EVP_PKEY_free(k);
    }
    ERR_clear_error();
    if (err) {
        char *why = fmt("not available in this libcrypto: %s", err);
        free(err);
        return why;
    }
    return NULL;
}

static const char *unavailable(prim *p) {
    if (!p->avail_done) {
        p->unavailable = probe(p);
        p->avail_done = 1;
    }
    return p->unavailable;
}

/* RFC 7253 appendix A's iterated OCB test (crates/catalog/src/modes.rs ocb_iterated): under the
 * key of zeros ending in the tag length in bits, for i = 0 … 127 and S = i zero bytes, append
 * the sealings of (AAD, message) = (S, S), (none, S), (S, none) with nonces 3i+1, 3i+2, 3i+3
 * (96-bit big-endian); the answer is the tag of sealing nothing under all of that as AAD, nonce
 * 385. */
static char *ocb_iterated(const prim *p, const kat *k) {
    static const unsigned char zeros[128];
    unsigned char key[32] = {0}, nonce_b[12] = {0}, tag[16], *all;
    size_t tag_n = k->out.n, all_n = 0, ct_n = 0, i, j;
    bytes key_b = {key, p->key_len}, nonce = {nonce_b, 12};
    char *err = NULL;
    if (tag_n == 0 || tag_n > sizeof tag || p->key_len > sizeof key || p->key_len == 0)
        return fmt("an iterated OCB vector with a %u-byte tag and a %u-byte key",
                   (unsigned)tag_n, (unsigned)p->key_len);
    key[p->key_len - 1] = (unsigned char)(tag_n * 8);
    all = xrealloc(NULL, 128 * (2 * 128 + 3 * sizeof tag) + 64);
    for (i = 0; i < 128 && !err; i++) {
        for (j = 1; j <= 3 && !err; j++) {
            uint32_t n = (uint32_t)(3 * i + j);
            size_t aad_n = j == 2 ? 0 : i, pt_n = j == 3 ? 0 : i;
            nonce_b[8] = (unsigned char)(n >> 24), nonce_b[9] = (unsigned char)(n >> 16);
            nonce_b[10] = (unsigned char)(n >> 8), nonce_b[11] = (unsigned char)n;
            if (aead_seal(p, &key_b, &nonce, zeros, aad_n, zeros, pt_n, all + all_n, &ct_n, tag,
                          tag_n, &err)) {
                memcpy(all + all_n + ct_n, tag, tag_n);
                all_n += ct_n + tag_n;
            }
        }
    }
    nonce_b[8] = 0, nonce_b[9] = 0, nonce_b[10] = 385 >> 8, nonce_b[11] = 385 & 0xff;
    if (!err && aead_seal(p, &key_b, &nonce, all, all_n, zeros, 0, all + all_n, &ct_n, tag, tag_n,
                          &err) &&
        memcmp(tag, k->out.p, tag_n) != 0)
        err = mismatch("iterated OCB tag", tag, tag_n, k->out.p, k->out.n);
    free(all);
    return err;
}

/* A digest's or XOF's output for the vector's message. */
static char *digest_kat(const prim *p, const kat *k) {
    unsigned char got[256];
    unsigned int len = 0;
    EVP_MD *md = EVP_MD_fetch(NULL, p->name, NULL);
    int ok;
    if (!md) return fmt("no provider offers digest %s", p->name);
    if (k->out.n > sizeof got) {
        EVP_MD_free(md);
        return fmt("digest vector longer than this worker handles");
    }
    if (is(p, "xof")) {
        EVP_MD_CTX *c = EVP_MD_CTX_new();
        ok = EVP_DigestInit_ex(c, md, NULL) == 1 &&
             EVP_DigestUpdate(c, k->msg.p, k->msg.n) == 1 &&
             EVP_DigestFinalXOF(c, got, k->out.n) == 1;
        len = (unsigned)k->out.n;
        EVP_MD_CTX_free(c);
    } else {
        ok = EVP_Digest(k->msg.p, k->msg.n, got, &len, md, NULL) == 1;
    }
    EVP_MD_free(md);
    if (!ok) return fmt("EVP_Digest failed: %s", ssl_errors());
    if (len != k->out.n || memcmp(got, k->out.p, len) != 0)
        return mismatch(is(p, "xof") ? "XOF output" : "digest", got, len, k->out.p, k->out.n);
    return NULL;
}

/* A MAC of the vector's message under its key (and GMAC's IV). */
static char *mac_kat(const prim *p, const kat *k) {
    char *err = NULL;
    unsigned char got[64];
    size_t len = 0;
    EVP_MAC_CTX *m = mac_ctx(p, k->key.p, k->key.n, k->iv.p, k->iv.n, &err);
    int ok;
    if (!m) return err;
    ok = EVP_MAC_update(m, k->msg.p, k->msg.n) == 1 &&
         EVP_MAC_final(m, got, &len, sizeof got) == 1;
    EVP_MAC_CTX_free(m);
    if (!ok) return fmt("MAC computation failed: %s", ssl_errors());
    if (len != k->out.n || memcmp(got, k->out.p, len) != 0)
        return mismatch("MAC", got, len, k->out.p, k->out.n);
    return NULL;
}

/* A cipher's ciphertext, and the plaintext back. */
static char *cipher_kat(const prim *p, const kat *k) {
    char *err = NULL;
    int enc;
    for (enc = 1; enc >= 0; enc--) {
        const bytes *in = enc ? &k->msg : &k->out, *want = enc ? &k->out : &k->msg;
        unsigned char *out = xrealloc(NULL, in->n + 32);
        EVP_CIPHER_CTX *c = cipher_ctx(p->name, k->key.p, k->key.n, k->iv.p, k->iv.n, enc, &err);
        if (!c) {
            free(out);
            return err;
        }
        if (EVP_Cipher(c, out, in->p, (unsigned)in->n) <= 0) {
            err = fmt("EVP_Cipher failed: %s", ssl_errors());
        } else if (want->n != in->n || memcmp(out, want->p, in->n) != 0) {
            err = mismatch(enc ? "ciphertext" : "decrypted plaintext", out, in->n, want->p,
                           want->n);
        }
        EVP_CIPHER_CTX_free(c);
        free(out);
        if (err) return err;
    }
    return NULL;
}

/* An AEAD's ciphertext and tag (the vector's tag length), the plaintext back under the valid
 * tag, and a corrupted tag rejected. */
static char *aead_kat(const prim *p, const kat *k) {
    char *err = NULL;
    unsigned char *ct = xrealloc(NULL, k->msg.n + 32), *pt = xrealloc(NULL, k->out.n + 32);
    unsigned char tag[64], bad[64];
    size_t ct_n = 0, pt_n = 0;
    int r;
    /* the vector's tag length: CCM's published vectors have 4- to 16-byte tags */
    if (k->tag.n == 0 || k->tag.n > 16) {
        err = fmt("a tag of %u bytes (1 to 16 are possible)", (unsigned)k->tag.n);
    } else if (!aead_seal(p, &k->key, &k->iv, k->aad.p, k->aad.n, k->msg.p, k->msg.n, ct,
                          &ct_n, tag, k->tag.n, &err)) {
    } else if (ct_n != k->out.n || memcmp(ct, k->out.p, ct_n) != 0) {
        err = mismatch("ciphertext", ct, ct_n, k->out.p, k->out.n);
    } else if (memcmp(tag, k->tag.p, k->tag.n) != 0) {
        err = mismatch("tag", tag, k->tag.n, k->tag.p, k->tag.n);
    } else if ((r = aead_open(p, &k->key, &k->iv, &k->aad, &k->out, k->tag.p, k->tag.n, pt,
                              &pt_n, &err)) < 0) {
    } else if (r == 0) {
        err = fmt("a valid tag was rejected on decryption");
    } else if (pt_n != k->msg.n || memcmp(pt, k->msg.p, pt_n) != 0) {
        err = mismatch("decrypted plaintext", pt, pt_n, k->msg.p, k->msg.n);
    } else {
        memcpy(bad, k->tag.p, k->tag.n);
        bad[0] ^= 1;
        r = aead_open(p, &k->key, &k->iv, &k->aad, &k->out, bad, k->tag.n, pt, &pt_n, &err);
        if (r > 0) err = fmt("a corrupted tag was accepted");
    }
    free(ct);
    free(pt);
    return err;
}

static char *known_answer(const prim *p, const kat *k) {
    if (strcmp(k->kind, "digest") == 0 && (is(p, "digest") || is(p, "xof"))) return digest_kat(p, k);
    if (strcmp(k->kind, "mac") == 0) return mac_kat(p, k);
    if (strcmp(k->kind, "cipher") == 0) return cipher_kat(p, k);
    if (strcmp(k->kind, "aead") == 0) return aead_kat(p, k);
    if (strcmp(k->kind, "ocb-iterated") == 0 && is(p, "aead")) return ocb_iterated(p, k);
    if (strcmp(k->kind, "cross-check") == 0 && is(p, "rsa")) return rsa_cross_check(p);
    if (is_pkey_family(p)) return pkey_known_answer(p, k);
    return fmt("vector kind %s does not fit %s", k->kind, p->family);
}

/* Every vector of the primitive, once; the first failure names its source. */
static const char *verify(prim *p) {
    const char *why;
    size_t i;
    if (p->kat_done) return p->kat_error;
    p->kat_done = 1;
    if ((why = unavailable(p)) != NULL) {
        p->kat_error = xstrdup(why);
    } else if (p->nkats == 0) {
        p->kat_error = xstrdup("no known-answer vectors");
    } else {
        for (i = 0; i < p->nkats && !p->kat_error; i++) {
            char *e = known_answer(p, &p->kats[i]);
            if (e) {
                p->kat_error = fmt("%s (%s)", e, p->kats[i].source);
                free(e);
            }
        }
    }
    ERR_clear_error();
    if (!p->kat_error && strcmp(fault_kat, p->id) == 0)
        p->kat_error = xstrdup("known-answer test failed: output corrupted by CRYPTOSPEED_FAULT");
    return p->kat_error;
}

/* ---------------------------------------------------------------------------------------- */
/* timed cells */

enum loop {
    L_DIGEST, L_XOF, L_MAC, L_GMAC, L_CIPHER, L_AEAD_ENC, L_AEAD_DEC, L_AE_MODE,
    L_PK_SIGN, L_PK_VERIFY, L_RSA_ENC, L_RSA_DEC, L_EDDSA_SIGN, L_EDDSA_VERIFY, L_DERIVE
};

typedef struct cell {
    char *key;
    enum loop loop;
    unsigned char *msg, *out, *ct, *nonce, *tag, *key_bytes;
    size_t n, out_n, ct_n, tag_n, nonce_n;
    enum ae_mode ae;
    int enc;
    EVP_CIPHER *evp;
    EVP_MD *md;
    EVP_MD_CTX *mdctx;
    EVP_MAC_CTX *mac;
    EVP_CIPHER_CTX *cipher;
    EVP_PKEY *pkey, *peer, *reinit;
    EVP_PKEY_CTX *pctx;
    struct cell *next;
} cell;

static cell *cells;

/* A DSA, ECDSA, EdDSA, ECDH or FFDH cell (pkey.h): the 20-byte message 0, 1, 2 … openssl speed
 * signs, its signature kept for verify; or a second key pair, the fixed peer to derive with. */
static void prepare_pkey(cell *c, const prim *p, const char *op, char **err) {
    int sign = strcmp(op, "sign") == 0, verify = strcmp(op, "verify") == 0;
    unsigned i;
    int agree = is(p, "ecdh") || is(p, "ffdh");
    if (agree ? strcmp(op, "derive") != 0 : !sign && !verify) {
        *err = fmt("%s is not an operation of %s", op, p->id);
        return;
    }
    if (!(c->pkey = timing_pkey(p, err))) return;
    if (agree) {
        if (!(c->peer = timing_pkey(p, err)) || !(c->pctx = pkey_ctx(c->pkey, PK_DERIVE, err)))
            return;
        if (EVP_PKEY_derive_set_peer(c->pctx, c->peer) != 1)
            *err = fmt("EVP_PKEY_derive_set_peer failed: %s", ssl_errors());
        c->loop = L_DERIVE;
        return;
    }
    c->n = 20;
    for (i = 0; i < 20; i++) c->msg[i] = (unsigned char)i;
    c->ct = xrealloc(NULL, 1024);
    if (!pk_sign(p, c->pkey, c->msg, 20, c->ct, &c->ct_n)) {
        *err = fmt("cannot prepare the %s cell: %s", p->id, ssl_errors());
    } else if (is(p, "eddsa")) {
        if (!(c->mdctx = eddsa_ctx(c->pkey, sign)))
            *err = fmt("EdDSA initialisation failed: %s", ssl_errors());
        else
            c->reinit = eddsa_reinit_key(c->mdctx, c->pkey, sign, c->msg, 20, c->ct, c->ct_n);
        c->loop = sign ? L_EDDSA_SIGN : L_EDDSA_VERIFY;
    } else {
        c->pctx = pkey_ctx(c->pkey, sign ? PK_SIGN : PK_VERIFY, err);
        c->loop = sign ? L_PK_SIGN : L_PK_VERIFY;
    }
}

/* An AEAD cell: the timing key, a zero nonce, openssl speed's tag (16 bytes for every AE mode in
 * 3.5); decryption opens the ciphertext of the message buffer, sealed here once. */
static void prepare_aead(cell *c, const prim *p, const char *op, size_t misalign, char **err) {
    unsigned char key[64];
    size_t n = c->n;
    bytes k, nonce;
    int enc = strcmp(op, "encrypt") == 0;
    timing_key(key, p->key_len);
    c->nonce = xrealloc(NULL, p->iv_len + 1);
    memset(c->nonce, 0, p->iv_len + 1);
    k.p = key, k.n = p->key_len, nonce.p = c->nonce, nonce.n = p->iv_len;
    /* openssl speed 3.5 gives every AE mode a 16-byte tag */
    c->ae = ae_mode_of(p->name);
    c->tag_n = c->ae ? 16 : p->tag_len;
    c->tag = xrealloc(NULL, c->tag_n + 64);
    if (!enc) {
        /* the ciphertext of the message buffer, with its tag, opened every call */
        size_t ct_n = 0;
        unsigned char *ct = xrealloc(NULL, n + 64);
        if (aead_seal(p, &k, &nonce, AAD13, 13, c->msg, n, ct, &ct_n, c->tag, c->tag_n, err)) {
            c->ct = aligned(n, 64, misalign);
            memcpy(c->ct, ct, n);
        }
        free(ct);
    }
    if (c->ae) {
        c->enc = enc, c->nonce_n = p->iv_len;
        c->key_bytes = xrealloc(NULL, p->key_len);
        memcpy(c->key_bytes, key, p->key_len);
        if (!*err && !(c->evp = EVP_CIPHER_fetch(NULL, p->name, NULL)))
            *err = fmt("no provider offers cipher %s (%s)", p->name, ssl_errors());
        if (!*err && !(c->cipher = ae_ctx(c->evp, enc)))
            *err = fmt("EVP_CipherInit_ex(%s) failed: %s", p->name, ssl_errors());
        c->loop = L_AE_MODE;
        return;
    }
    if (!*err) c->cipher = cipher_ctx(p->name, key, p->key_len, c->nonce, p->iv_len, enc, err);
    c->loop = enc ? L_AEAD_ENC : L_AEAD_DEC;
}

/* An RSA cell with the shipped key: the 36 bytes 0, 1, 2 … openssl speed signs (the signature
 * kept for verify), or 32 bytes of 0x5a to encrypt (the ciphertext kept for decrypt). */
static void prepare_rsa(cell *c, const prim *p, const char *op, char **err) {
    enum pk_op pk;
    unsigned i;
    if (strcmp(op, "sign") == 0) pk = PK_SIGN, c->loop = L_PK_SIGN;
    else if (strcmp(op, "verify") == 0) pk = PK_VERIFY, c->loop = L_PK_VERIFY;
    else if (strcmp(op, "encrypt") == 0) pk = PK_ENCRYPT, c->loop = L_RSA_ENC;
    else if (strcmp(op, "decrypt") == 0) pk = PK_DECRYPT, c->loop = L_RSA_DEC;
    else {
        *err = fmt("%s is not an operation of %s", op, p->id);
        return;
    }
    if (!(c->pkey = private_key(p, err))) return;
    /* the message: 36 bytes 0, 1, 2 … to sign, 32 bytes of 0x5a to encrypt */
    c->ct = xrealloc(NULL, 4096);
    if (pk == PK_SIGN || pk == PK_VERIFY) {
        c->n = 36;
        for (i = 0; i < 36; i++) c->msg[i] = (unsigned char)i;
    } else {
        c->n = 32;
        memset(c->msg, 0x5a, 32);
    }
    if (pk == PK_VERIFY || pk == PK_DECRYPT) {
        EVP_PKEY_CTX *pre = pkey_ctx(c->pkey, pk == PK_VERIFY ? PK_SIGN : PK_ENCRYPT, err);
        size_t len = 4096;
        int ok = pre && (pk == PK_VERIFY ? sign_with(pre, c->msg, 36, c->ct, &len)
                                         : EVP_PKEY_encrypt(pre, c->ct, &len, c->msg, 32) > 0);
        EVP_PKEY_CTX_free(pre);
        if (!*err && !ok) *err = fmt("cannot prepare the RSA cell: %s", ssl_errors());
        c->ct_n = len;
    }
    if (!*err) c->pctx = pkey_ctx(c->pkey, pk, err);
}

static cell *prepare(prim *p, const char *op, size_t n, size_t misalign, char **err) {
    cell *c = xrealloc(NULL, sizeof *c);
    unsigned char key[64];
    memset(c, 0, sizeof *c);
    c->n = n;
    c->msg = aligned(n, 64, misalign);
    c->out = aligned(n + 64 > 4096 ? n + 64 : 4096, 0, 0);
    if ((is(p, "digest") || is(p, "xof")) && strcmp(op, "hash") == 0) {
        c->md = EVP_MD_fetch(NULL, p->name, NULL);
        c->loop = is(p, "xof") ? L_XOF : L_DIGEST;
        c->out_n = p->out_len;
        if (is(p, "xof")) c->mdctx = EVP_MD_CTX_new();
        if (!c->md) *err = fmt("no provider offers digest %s", p->name);
    } else if ((is(p, "hmac") || is(p, "cmac")) && strcmp(op, "mac") == 0) {
        size_t kl = is(p, "cmac") ? 16 : 32;
        timing_key(key, kl);
        c->mac = mac_ctx(p, key, kl, NULL, 0, err);
        c->loop = L_MAC;
    } else if (is(p, "gmac") && strcmp(op, "mac") == 0) {
        static const unsigned char zero[12];
        timing_key(key, 16);
        c->mac = mac_ctx(p, key, 16, zero, 12, err);
        c->loop = L_GMAC;
    } else if (is(p, "cipher") && (strcmp(op, "encrypt") == 0 || strcmp(op, "decrypt") == 0)) {
        unsigned char iv[32] = {0};
        timing_key(key, p->key_len);
        c->cipher = cipher_ctx(p->name, key, p->key_len, iv, p->iv_len, strcmp(op, "encrypt") == 0,
                               err);
        c->loop = L_CIPHER;
    } else if (is(p, "aead") && (strcmp(op, "encrypt") == 0 || strcmp(op, "decrypt") == 0)) {
        prepare_aead(c, p, op, misalign, err);
    } else if (is_pkey_family(p)) {
        prepare_pkey(c, p, op, err);
    } else if (is(p, "rsa")) {
        prepare_rsa(c, p, op, err);
    } else {
        *err = fmt("the C worker does not time %s %s", p->id, op);
    }
    return c;
}

/* An AE mode's loop: per message ae_begin, the message (in place when encrypting, from the kept
 * ciphertext into the second buffer when decrypting, as openssl speed does), final. GCM-SIV gets
 * a fresh context per message: OpenSSL's appends each message's AAD to the last one's on a
 * reused context, so an application must start over each time. */
static char *run_ae_mode(cell *c, unsigned long long iters) {
    unsigned long long i;
    const unsigned char *src = c->enc ? c->msg : c->ct;
    unsigned char *dst = c->enc ? c->msg : c->out;
    int outl = 0, fin = 0;
    for (i = 0; i < iters; i++) {
        if (c->ae == AE_GCM_SIV) {
            EVP_CIPHER_CTX *fresh = ae_ctx(c->evp, c->enc);
            if (!fresh) return fmt("EVP_CIPHER_CTX_new failed");
            EVP_CIPHER_CTX_free(c->cipher);
            c->cipher = fresh;
        }
        if (!(ae_begin(c->cipher, c->ae, c->key_bytes, c->nonce, c->nonce_n, c->enc ? NULL : c->tag,
                       c->tag_n, AAD13, 13, c->n) &&
              ae_update(c->cipher, c->enc, dst, &outl, src, c->n) &&
              ae_final(c->cipher, c->enc, dst + outl, &fin)))
            return fmt("AE-mode message failed: %s", ssl_errors());
    }
    return NULL;
}

/* The public-key loops: sign, verify, derive, RSA encrypt and decrypt. */
static char *run_pkey(cell *c, unsigned long long iters) {
    unsigned long long i;
    const unsigned char *p = c->msg;
    unsigned char *o = c->out;
    size_t n = c->n;
    switch (c->loop) {
    case L_PK_SIGN:
        for (i = 0; i < iters; i++) {
            size_t len = 4096;
            if (EVP_PKEY_sign(c->pctx, o, &len, p, n) != 1)
                return fmt("EVP_PKEY_sign failed: %s", ssl_errors());
        }
        break;
    case L_PK_VERIFY:
        for (i = 0; i < iters; i++)
            if (EVP_PKEY_verify(c->pctx, c->ct, c->ct_n, p, n) != 1)
                return fmt("signature did not verify: %s", ssl_errors());
        break;
    case L_EDDSA_SIGN:
        for (i = 0; i < iters; i++) {
            size_t len = 4096;
            if (EVP_DigestSignInit(c->mdctx, NULL, NULL, NULL, c->reinit) != 1 ||
                EVP_DigestSign(c->mdctx, o, &len, p, n) != 1)
                return fmt("EdDSA signing failed: %s", ssl_errors());
        }
        break;
    case L_EDDSA_VERIFY:
        for (i = 0; i < iters; i++)
            if (EVP_DigestVerifyInit(c->mdctx, NULL, NULL, NULL, c->reinit) != 1 ||
                EVP_DigestVerify(c->mdctx, c->ct, c->ct_n, p, n) != 1)
                return fmt("EdDSA signature did not verify: %s", ssl_errors());
        break;
    case L_DERIVE:
        for (i = 0; i < iters; i++) {
            size_t len = 4096;
            if (EVP_PKEY_derive(c->pctx, o, &len) != 1)
                return fmt("EVP_PKEY_derive failed: %s", ssl_errors());
        }
        break;
    case L_RSA_ENC:
        for (i = 0; i < iters; i++) {
            size_t len = 4096;
            if (EVP_PKEY_encrypt(c->pctx, o, &len, p, n) <= 0)
                return fmt("EVP_PKEY_encrypt failed: %s", ssl_errors());
        }
        break;
    case L_RSA_DEC:
        for (i = 0; i < iters; i++) {
            size_t len = 4096;
            if (EVP_PKEY_decrypt(c->pctx, o, &len, c->ct, c->ct_n) <= 0)
                return fmt("EVP_PKEY_decrypt failed: %s", ssl_errors());
        }
        break;
    default:
        return fmt("not a public-key loop");
    }
    return NULL;
}

/* Runs the cell iters times; NULL, or why a call failed. */
static char *run(cell *c, unsigned long long iters) {
    unsigned long long i;
    unsigned char *p = c->msg, *o = c->out;
    size_t n = c->n, outl_s = 0;
    int outl = 0;
    unsigned int mdlen = 0;
    switch (c->loop) {
    case L_DIGEST:
        for (i = 0; i < iters; i++)
            if (EVP_Digest(p, n, o, &mdlen, c->md, NULL) != 1)
                return fmt("EVP_Digest failed: %s", ssl_errors());
        break;
    case L_XOF:
        for (i = 0; i < iters; i++)
            if (!(EVP_DigestInit_ex(c->mdctx, c->md, NULL) == 1 &&
                  EVP_DigestUpdate(c->mdctx, p, n) == 1 &&
                  EVP_DigestFinalXOF(c->mdctx, o, c->out_n) == 1))
                return fmt("XOF failed: %s", ssl_errors());
        break;
    case L_MAC:
        for (i = 0; i < iters; i++)
            if (!(EVP_MAC_init(c->mac, NULL, 0, NULL) == 1 && EVP_MAC_update(c->mac, p, n) == 1 &&
                  EVP_MAC_final(c->mac, o, &outl_s, 64) == 1))
                return fmt("EVP_MAC failed: %s", ssl_errors());
        break;
    case L_GMAC:
        for (i = 0; i < iters; i++)
            if (EVP_MAC_update(c->mac, p, n) != 1)
                return fmt("EVP_MAC_update failed: %s", ssl_errors());
        break;
    case L_CIPHER:
        for (i = 0; i < iters; i++)
            if (EVP_Cipher(c->cipher, p, p, (unsigned)n) <= 0)
                return fmt("EVP_Cipher failed: %s", ssl_errors());
        break;
    case L_AEAD_ENC:
        for (i = 0; i < iters; i++)
            if (!(EVP_CipherInit_ex(c->cipher, NULL, NULL, NULL, c->nonce, 1) == 1 &&
                  EVP_EncryptUpdate(c->cipher, NULL, &outl, AAD13, 13) == 1 &&
                  EVP_EncryptUpdate(c->cipher, p, &outl, p, (int)n) == 1 &&
                  EVP_EncryptFinal_ex(c->cipher, p + outl, &outl) == 1))
                return fmt("AEAD encryption failed: %s", ssl_errors());
        break;
    case L_AEAD_DEC:
        for (i = 0; i < iters; i++)
            if (!(EVP_CipherInit_ex(c->cipher, NULL, NULL, NULL, c->nonce, 0) == 1 &&
                  EVP_CIPHER_CTX_ctrl(c->cipher, EVP_CTRL_AEAD_SET_TAG, (int)c->tag_n, c->tag) ==
                      1 &&
                  EVP_DecryptUpdate(c->cipher, NULL, &outl, AAD13, 13) == 1 &&
                  EVP_DecryptUpdate(c->cipher, o, &outl, c->ct, (int)n) == 1 &&
                  EVP_DecryptFinal_ex(c->cipher, o + outl, &outl) == 1))
                return fmt("AEAD decryption did not authenticate: %s", ssl_errors());
        break;
    case L_AE_MODE:
        return run_ae_mode(c, iters);
    case L_PK_SIGN:
    case L_PK_VERIFY:
    case L_EDDSA_SIGN:
    case L_EDDSA_VERIFY:
    case L_DERIVE:
    case L_RSA_ENC:
    case L_RSA_DEC:
        return run_pkey(c, iters);
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* requests */

static void error_reply(jbuf *b, const char *message) {
    jb_lit(b, "{\"reply\":\"error\",\"message\":");
    jb_str(b, message);
    jb_lit(b, "}");
}

static void bytes_field(const jval *o, const char *key, bytes *out) {
    if (!unhex(jstr(o, key), out)) out->n = 0;
}

static int load_vectors(const jval *list) {
    size_t i, j;
    if (!list || list->type != J_ARR) return 0;
    catalog = xrealloc(NULL, (list->n + 1) * sizeof *catalog);
    memset(catalog, 0, (list->n + 1) * sizeof *catalog);
    for (i = 0; i < list->n; i++) {
        const jval *o = list->items[i], *ks = jget(o, "kats");
        prim *p = &catalog[i];
        p->id = xstrdup(jstr(o, "id"));
        p->family = xstrdup(jstr(o, "family"));
        p->name = xstrdup(jstr(o, "name"));
        p->key_len = (size_t)jnum(o, "key_len");
        p->iv_len = (size_t)jnum(o, "iv_len");
        p->tag_len = (size_t)jnum(o, "tag_len");
        p->out_len = (size_t)jnum(o, "out_len");
        p->bits = (unsigned)jnum(o, "bits");
        bytes_field(o, "private_key", &p->private_key);
        p->nkats = ks && ks->type == J_ARR ? ks->n : 0;
        p->kats = xrealloc(NULL, (p->nkats + 1) * sizeof *p->kats);
        memset(p->kats, 0, (p->nkats + 1) * sizeof *p->kats);
        for (j = 0; j < p->nkats; j++) {
            const jval *k = ks->items[j];
            kat *v = &p->kats[j];
            snprintf(v->kind, sizeof v->kind, "%s", jstr(k, "kind"));
            bytes_field(k, "key", &v->key);
            bytes_field(k, "iv", &v->iv);
            bytes_field(k, "msg", &v->msg);
            bytes_field(k, "aad", &v->aad);
            bytes_field(k, "out", &v->out);
            bytes_field(k, "tag", &v->tag);
            bytes_field(k, "public", &v->public_);
            snprintf(v->digest, sizeof v->digest, "%s", jstr(k, "digest"));
            v->source = xstrdup(jstr(k, "source"));
        }
    }
    ncatalog = list->n;
    have_vectors = 1;
    return 1;
}

static void hello(jbuf *b, const char *exe) {
    const char *version = OpenSSL_version(OPENSSL_VERSION);
    const char *cpu = OpenSSL_version(OPENSSL_CPU_INFO);
    const char *mask = getenv("OPENSSL_ia32cap");
    char shortv[64] = "unknown";
    sscanf(version, "%*s %63s", shortv);
    if (strncmp(cpu, "CPUINFO: ", 9) == 0) cpu += 9;
    jb_printf(b, "{\"reply\":\"hello\",\"protocol\":%d,\"measures\":false,\"wants_vectors\":true,",
              PROTOCOL_VERSION);
    jb_lit(b, "\"variant\":{\"label\":");
    {
        char label[96];
        snprintf(label, sizeof label, "openssl-%s", shortv);
        jb_str(b, label);
    }
    jb_lit(b, ",\"implementation\":\"openssl\",\"version\":");
    jb_str(b, shortv);
    jb_lit(b, ",\"library\":");
    {
        char *lib = fmt("%s (libcrypto linked statically into this %u-bit C worker)", exe,
                        (unsigned)(sizeof(void *) * 8));
        jb_str(b, lib);
        free(lib);
    }
    jb_lit(b, ",\"build_info\":[");
    jb_str(b, version);
    jb_lit(b, ",");
    jb_str(b, OpenSSL_version(OPENSSL_BUILT_ON));
    jb_lit(b, ",");
    jb_str(b, OpenSSL_version(OPENSSL_PLATFORM));
    jb_lit(b, ",");
    jb_str(b, OpenSSL_version(OPENSSL_CFLAGS));
    jb_lit(b, ",");
    {
        char *w = fmt("worker: the %u-bit C worker (workers/c), sampled by the orchestrator: it "
                      "reads CLOCK_MONOTONIC, the thread CPU clock and RDTSC around each batch",
                      (unsigned)(sizeof(void *) * 8));
        jb_str(b, w);
        free(w);
    }
    jb_lit(b, "],\"capabilities\":");
    jb_str(b, cpu);
    jb_lit(b, ",\"feature_mask\":");
    if (mask && *mask) {
        char *m = fmt("OPENSSL_ia32cap=%s", mask);
        jb_str(b, m);
        free(m);
    } else {
        jb_str(b, "");
    }
    jb_lit(b, "}}");
}

static void availability(jbuf *b, const jval *ids) {
    size_t i;
    jb_lit(b, "{\"reply\":\"availability\",\"entries\":[");
    for (i = 0; ids && ids->type == J_ARR && i < ids->n; i++) {
        const char *id = ids->items[i]->type == J_STR ? ids->items[i]->str : "";
        prim *p = find(id);
        const char *why;
        char *owned = NULL;
        if (p) why = unavailable(p);
        else if (!have_vectors) why = "no vectors were sent to the C worker";
        else why = owned = fmt("unknown primitive %s", id);
        if (i) jb_lit(b, ",");
        jb_lit(b, "{\"primitive\":");
        jb_str(b, id);
        jb_printf(b, ",\"available\":%s", why ? "false" : "true");
        if (why) {
            jb_lit(b, ",\"reason\":");
            jb_str(b, why);
        }
        jb_lit(b, "}");
        free(owned);
    }
    jb_lit(b, "]}");
}

static void verify_reply(jbuf *b, const char *id) {
    prim *p = find(id);
    const char *err = p ? verify(p) : have_vectors ? "unknown primitive" : "no vectors were sent";
    jb_lit(b, "{\"reply\":\"verify\",\"primitive\":");
    jb_str(b, id);
    jb_printf(b, ",\"ok\":%s,\"detail\":", err ? "false" : "true");
    if (err) {
        jb_str(b, err);
    } else {
        jbuf sources = {0};
        size_t i;
        jb_lit(&sources, "");
        for (i = 0; i < p->nkats; i++) {
            if (i) jb_lit(&sources, "; ");
            jb_lit(&sources, p->kats[i].source);
        }
        jb_str(b, sources.s);
        free(sources.s);
    }
    jb_lit(b, "}");
}

/* The cell a sample or profile request names, prepared once and kept, after its primitive's
 * known-answer tests pass; NULL after an error reply ("not <what>: …"). */
static cell *cell_of(jbuf *b, const jval *spec, const char *what) {
    const char *id = jstr(spec, "primitive"), *op = jstr(spec, "op");
    const jval *bytes_v = jget(spec, "bytes");
    size_t n = bytes_v && bytes_v->type == J_NUM ? (size_t)bytes_v->u : 0;
    size_t misalign = (size_t)jnum(spec, "misalign");
    prim *p = find(id);
    const char *kat_err;
    char key[256], *err = NULL;
    cell *c;
    if (!p) {
        error_reply(b, "unknown primitive");
        return NULL;
    }
    if ((kat_err = verify(p)) != NULL) {
        char *m = fmt("not %s: known-answer test failed: %s", what, kat_err);
        error_reply(b, m);
        free(m);
        return NULL;
    }
    if (strcmp(fault_crash, id) == 0) raise(SIGSEGV);
    snprintf(key, sizeof key, "%s|%s|%llu|%u", id, op,
             bytes_v && bytes_v->type == J_NUM ? bytes_v->u + 1 : 0ULL, (unsigned)misalign);
    for (c = cells; c; c = c->next)
        if (strcmp(c->key, key) == 0) return c;
    c = prepare(p, op, n, misalign, &err);
    if (err) {
        char *m = fmt("cannot set the cell up: %s", err);
        error_reply(b, m);
        free(m);
        free(err);
        return NULL; /* the half-made cell is dropped (a few buffers; a worker lives one round) */
    }
    c->key = xstrdup(key);
    c->next = cells;
    cells = c;
    return c;
}

static void sample(jbuf *b, const jval *spec, unsigned long long iters) {
    char *why;
    uint64_t cpu0, tsc0, wall0, wall1, tsc1, cpu1;
    cell *c = cell_of(b, spec, "timed");
    if (!c) return;
    cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    tsc0 = rdtsc();
    wall0 = clock_ns(CLOCK_MONOTONIC);
    why = run(c, iters);
    wall1 = clock_ns(CLOCK_MONOTONIC);
    tsc1 = rdtsc();
    cpu1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (why) {
        error_reply(b, why);
        free(why);
        return;
    }
    jb_printf(b, "{\"reply\":\"sample\",\"sample\":{\"iters\":%llu,\"wall_ns\":%llu,", iters,
              (unsigned long long)(wall1 - wall0));
    jb_printf(b, "\"cpu_ns\":%llu,\"tsc\":%llu,\"bout\":0}}", (unsigned long long)(cpu1 - cpu0),
              (unsigned long long)(tsc1 - tsc0));
}

/* The markers `cryptospeed profile` traces between: under qemu-user its plugin writes marker
 * 1, 2 or 3 when the first instruction of one of these functions runs (it finds them by their
 * symbol names, so they are external, never inlined, and each has a body of its own that no
 * optimisation can merge with another's). Natively they do nothing but count. */
volatile unsigned cryptospeed_marker_count;

__attribute__((noinline, used)) void cryptospeed_marker_warmup(void) {
    cryptospeed_marker_count += 1;
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline, used)) void cryptospeed_marker_measure(void) {
    cryptospeed_marker_count += 2;
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline, used)) void cryptospeed_marker_end(void) {
    cryptospeed_marker_count += 3;
    __asm__ __volatile__("" ::: "memory");
}

/* /proc/self/maps as one string (under qemu-user: the guest's mappings). */
static char *self_maps(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    jbuf text = {0};
    char chunk[4096];
    size_t got;
    jb_lit(&text, "");
    if (!f) return text.s;
    while ((got = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
        chunk[got] = '\0';
        jb_lit(&text, chunk);
    }
    fclose(f);
    return text.s;
}

/* `profile`: the cell's known answers and set-up as for a sample, then `warmup` calls between
 * the warm-up and measure markers and `iters` calls between the measure and end markers, as the
 * Rust worker does (crates/engine/src/worker_server.rs). No valgrind tool answers these
 * markers, so "marked" is false; the tracer finds them by their addresses or names. */
static void profile(jbuf *b, const jval *spec, unsigned long long warmup,
                    unsigned long long iters) {
    char *why, *maps;
    cell *c = cell_of(b, spec, "profiled");
    if (!c) return;
    cryptospeed_marker_warmup();
    why = run(c, warmup);
    cryptospeed_marker_measure();
    if (!why) why = run(c, iters);
    cryptospeed_marker_end();
    if (why) {
        char *m = fmt("the cell failed while profiled: %s", why);
        error_reply(b, m);
        free(m);
        free(why);
        return;
    }
    maps = self_maps();
    jb_printf(b, "{\"reply\":\"profiled\",\"marked\":false,\"marker_addresses\":[%llu,%llu,%llu],",
              (unsigned long long)(uintptr_t)&cryptospeed_marker_warmup,
              (unsigned long long)(uintptr_t)&cryptospeed_marker_measure,
              (unsigned long long)(uintptr_t)&cryptospeed_marker_end);
    jb_lit(b, "\"maps\":");
    jb_str(b, maps);
    jb_lit(b, "}");
    free(maps);
}

/* One request line → one reply; returns 0 after `quit`. */
static int handle(const char *line, jbuf *b, const char *exe) {
    const char *perr = NULL, *cmd;
    jval *r = jparse(line, &perr);
    int more = 1;
    if (!r) {
        char *m = fmt("malformed request: %s", perr ? perr : "?");
        error_reply(b, m);
        free(m);
        return 1;
    }
    cmd = jstr(r, "cmd");
    if (strcmp(cmd, "hello") == 0) {
        if (jnum(r, "protocol") != PROTOCOL_VERSION) {
            char *m = fmt("worker speaks protocol %d, not %llu", PROTOCOL_VERSION,
                          jnum(r, "protocol"));
            error_reply(b, m);
            free(m);
        } else {
            hello(b, exe);
        }
    } else if (strcmp(cmd, "vectors") == 0) {
        if (!load_vectors(jget(r, "primitives"))) error_reply(b, "malformed vectors");
        else jb_printf(b, "{\"reply\":\"vectors\",\"count\":%u}", (unsigned)ncatalog);
    } else if (strcmp(cmd, "availability") == 0) {
        availability(b, jget(r, "primitives"));
    } else if (strcmp(cmd, "verify") == 0) {
        verify_reply(b, jstr(r, "primitive"));
    } else if (strcmp(cmd, "sample") == 0) {
        const jval *spec = jget(r, "cell");
        if (!spec || spec->type != J_OBJ) error_reply(b, "sample needs a cell");
        else sample(b, spec, jnum(r, "iters"));
    } else if (strcmp(cmd, "measure") == 0) {
        error_reply(b, "the C worker leaves sampling to the orchestrator (hello says "
                       "\"measures\": false); send sample");
    } else if (strcmp(cmd, "agree") == 0 || strcmp(cmd, "check_signature") == 0) {
        error_reply(b, "the C worker takes no part in the agreement check (verify --impl all); "
                       "its known-answer tests are its check");
    } else if (strcmp(cmd, "profile") == 0) {
        const jval *spec = jget(r, "cell");
        if (!spec || spec->type != J_OBJ) error_reply(b, "profile needs a cell");
        else profile(b, spec, jnum(r, "warmup"), jnum(r, "iters"));
    } else if (strcmp(cmd, "quit") == 0) {
        jb_lit(b, "{\"reply\":\"bye\"}");
        more = 0;
    } else {
        char *m = fmt("unknown request \"%s\"", cmd);
        error_reply(b, m);
        free(m);
    }
    jfree(r);
    return more;
}

static void read_fault(void) {
    static char spec[256];
    char *part, *save = NULL;
    const char *env = getenv("CRYPTOSPEED_FAULT");
    if (!env) return;
    snprintf(spec, sizeof spec, "%s", env);
    for (part = strtok_r(spec, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        if (strncmp(part, "kat:", 4) == 0) fault_kat = part + 4;
        else if (strncmp(part, "crash:", 6) == 0) fault_crash = part + 6;
    }
}

int main(int argc, char **argv) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int i;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--pin") == 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(atoi(argv[i + 1]), &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) {
                perror("cryptospeed C worker: --pin");
                return 2;
            }
        }
    }
    read_fault();
    vary_layout();
    /* the default provider, and the legacy one (built in: the variant is configured no-module) */
    OSSL_PROVIDER_load(NULL, "default");
    OSSL_PROVIDER_load(NULL, "legacy");
    ERR_clear_error();
    while ((got = getline(&line, &cap, stdin)) > 0) {
        jbuf b = {0};
        int more;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = '\0';
        if (got == 0) continue;
        more = handle(line, &b, argv[0]);
        fwrite(b.s, 1, b.len, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(b.s);
        if (!more) break;
    }
    free(line);
    return 0;
}
