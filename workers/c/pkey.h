/* Public key beyond RSA in the C worker: DSA, ECDSA, EdDSA, ECDH (P-256, P-384, X25519, X448)
 * and FFDH, so a 32-bit build is timed on the curves and groups as its 64-bit twin is. The calls are
 * those of the Rust openssl column (crates/impls/src/openssl/pkey.rs), i.e. openssl speed's: the
 * shipped PKCS#8 key for DSA and fresh keys for the curves; EVP_PKEY_sign/verify of the 20-byte
 * message speed signs as a digest; EdDSA's one-shot EVP_DigestSign/Verify on a context
 * initialised again before every call; EVP_PKEY_derive against a fixed peer. The known answers
 * are the catalog's: published (EC)DSA and EdDSA signatures verified (and a corrupted one
 * rejected), RFC 8032 signatures made byte for byte, published shared secrets derived, and a
 * round trip through the timed calls; FFDH's shared secret is also recomputed outside the
 * library, pub_b^priv_a mod p with worker.c's schoolbook arithmetic.
 *
 * Included by worker.c after its RSA section, whose helpers (fmt, ssl_errors, mismatch, is,
 * private_key, pkey_ctx, sign_with, verify_with, num_modexp, bn_param) it uses; a header of
 * static functions, as json.h is. */
#include <openssl/param_build.h>

static const unsigned char NO_BYTES[1];

/* An empty byte string's pointer may be NULL; the library wants a valid one. */
static const unsigned char *bytes_ptr(const bytes *b) { return b->p ? b->p : NO_BYTES; }

static int is_nist_curve(const prim *p) { return strncmp(p->name, "P-", 2) == 0; }

/* The families this file serves. */
static int is_pkey_family(const prim *p) {
    return is(p, "dsa") || is(p, "ecdsa") || is(p, "eddsa") || is(p, "ecdh") || is(p, "ffdh");
}

/* A fresh key in the named RFC 7919 group (ffdhe2048 …). */
static EVP_PKEY *ffdh_key(const char *group) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
    EVP_PKEY *k = NULL;
    if (c && EVP_PKEY_keygen_init(c) == 1 && EVP_PKEY_CTX_set_group_name(c, group) == 1)
        EVP_PKEY_generate(c, &k);
    EVP_PKEY_CTX_free(c);
    return k;
}

/* The key a primitive is timed with: the shipped one for DSA, a fresh one on each curve and in
 * each group. */
static EVP_PKEY *timing_pkey(const prim *p, char **err) {
    EVP_PKEY *k;
    if (is(p, "dsa") || is(p, "rsa")) return private_key(p, err);
    if (is(p, "ffdh"))
        k = ffdh_key(p->name);
    else
        k = is_nist_curve(p) ? EVP_PKEY_Q_keygen(NULL, NULL, "EC", p->name)
                             : EVP_PKEY_Q_keygen(NULL, NULL, p->name);
    if (!k) *err = fmt("cannot make a %s key: %s", p->name, ssl_errors());
    return k;
}

/* A digest context for EdDSA's one-shot sign or verify with k (NULL: initialisation failed). */
static EVP_MD_CTX *eddsa_ctx(EVP_PKEY *k, int sign) {
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    int ok = m && (sign ? EVP_DigestSignInit(m, NULL, NULL, NULL, k)
                        : EVP_DigestVerifyInit(m, NULL, NULL, NULL, k)) == 1;
    if (ok) return m;
    EVP_MD_CTX_free(m);
    return NULL;
}

static int eddsa_sign(EVP_PKEY *k, const unsigned char *msg, size_t n, unsigned char *sig,
                      size_t *sig_n) {
    EVP_MD_CTX *m = eddsa_ctx(k, 1);
    int ok = m && EVP_DigestSign(m, sig, sig_n, msg, n) == 1;
    EVP_MD_CTX_free(m);
    return ok;
}

static int eddsa_verify(EVP_PKEY *k, const unsigned char *msg, size_t n, const unsigned char *sig,
                        size_t sig_n) {
    EVP_MD_CTX *m = eddsa_ctx(k, 0);
    int ok = m && EVP_DigestVerify(m, sig, sig_n, msg, n) == 1;
    EVP_MD_CTX_free(m);
    ERR_clear_error();
    return ok;
}

/* Signs tbs with k the way the primitive's timed loop does (into sig, room for 1024 bytes). */
static int pk_sign(const prim *p, EVP_PKEY *k, const unsigned char *tbs, size_t n,
                   unsigned char *sig, size_t *sig_n) {
    EVP_PKEY_CTX *c;
    char *err = NULL;
    int ok;
    *sig_n = 1024;
    if (is(p, "eddsa")) return eddsa_sign(k, tbs, n, sig, sig_n);
    c = pkey_ctx(k, PK_SIGN, &err);
    ok = c && sign_with(c, tbs, n, sig, sig_n);
    EVP_PKEY_CTX_free(c);
    free(err);
    return ok;
}

/* Whether sig verifies over tbs (a digest, or EdDSA's message) under k. */
static int pk_verify(const prim *p, EVP_PKEY *k, const unsigned char *tbs, size_t n,
                     const unsigned char *sig, size_t sig_n) {
    EVP_PKEY_CTX *c;
    char *err = NULL;
    int ok;
    if (is(p, "eddsa")) return eddsa_verify(k, tbs, n, sig, sig_n);
    c = pkey_ctx(k, PK_VERIFY, &err);
    ok = c && verify_with(c, tbs, n, sig, sig_n);
    EVP_PKEY_CTX_free(c);
    free(err);
    return ok;
}

/* sig verifies over tbs and the same signature with its middle byte changed does not (the
 * other workers' corruption, crates/impls/src/kat.rs: for Ed448 the last byte is always zero and
 * changing it would only test a range check). */
static char *verifies_and_rejects(const prim *p, EVP_PKEY *k, const unsigned char *tbs, size_t n,
                                  const unsigned char *sig, size_t sig_n, const char *whose) {
    unsigned char bad[1024];
    if (sig_n == 0 || sig_n > sizeof bad) return fmt("a signature of %u bytes", (unsigned)sig_n);
    if (!pk_verify(p, k, tbs, n, sig, sig_n)) return fmt("%s signature was rejected", whose);
    memcpy(bad, sig, sig_n);
    bad[sig_n / 2] ^= 0x40;
    if (pk_verify(p, k, tbs, n, bad, sig_n)) return fmt("a corrupted signature was accepted");
    return NULL;
}

/* A published signature: (EC)DSA over the vector's digest of msg, EdDSA over msg itself. */
static char *signature_verify_kat(const prim *p, const kat *k) {
    const unsigned char *d = k->public_.p;
    EVP_PKEY *key = d ? d2i_PUBKEY(NULL, &d, (long)k->public_.n) : NULL;
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned int hn = 0;
    char *err = NULL;
    if (!key) return fmt("the vector's public key does not load: %s", ssl_errors());
    if (is(p, "eddsa")) {
        err = verifies_and_rejects(p, key, bytes_ptr(&k->msg), k->msg.n, k->out.p, k->out.n,
                                   "a published valid");
    } else {
        EVP_MD *md = EVP_MD_fetch(NULL, k->digest, NULL);
        if (!md || EVP_Digest(bytes_ptr(&k->msg), k->msg.n, h, &hn, md, NULL) != 1)
            err = fmt("cannot hash the message with %s: %s", k->digest, ssl_errors());
        else
            err = verifies_and_rejects(p, key, h, hn, k->out.p, k->out.n, "a published valid");
        EVP_MD_free(md);
    }
    EVP_PKEY_free(key);
    return err;
}

/* RFC 8032: the signature of msg under the raw private key, byte for byte; the raw public key
 * verifies it. */
static char *eddsa_sign_kat(const prim *p, const kat *k) {
    EVP_PKEY *sk = EVP_PKEY_new_raw_private_key_ex(NULL, p->name, NULL, k->key.p, k->key.n);
    EVP_PKEY *pk = EVP_PKEY_new_raw_public_key_ex(NULL, p->name, NULL, k->public_.p, k->public_.n);
    unsigned char sig[1024];
    size_t n = sizeof sig;
    char *err = NULL;
    if (!sk || !pk)
        err = fmt("the vector's %s keys do not load: %s", p->name, ssl_errors());
    else if (!eddsa_sign(sk, bytes_ptr(&k->msg), k->msg.n, sig, &n))
        err = fmt("%s signing failed: %s", p->name, ssl_errors());
    else if (n != k->out.n || memcmp(sig, k->out.p, n) != 0)
        err = mismatch("signature", sig, n, k->out.p, k->out.n);
    else if (!eddsa_verify(pk, bytes_ptr(&k->msg), k->msg.n, sig, n))
        err = fmt("the published signature does not verify under the published public key");
    EVP_PKEY_free(sk);
    EVP_PKEY_free(pk);
    return err;
}

/* A NIST-curve key from a big-endian private scalar or a SEC1 public point. */
static EVP_PKEY *ec_key_from(const prim *p, const bytes *scalar, const bytes *point) {
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    BIGNUM *priv = scalar ? BN_bin2bn(scalar->p, (int)scalar->n, NULL) : NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY *k = NULL;
    int ok = bld && c &&
             OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, p->name, 0) == 1 &&
             (!priv || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv) == 1) &&
             (!point || OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point->p,
                                                         point->n) == 1) &&
             (params = OSSL_PARAM_BLD_to_param(bld)) != NULL && EVP_PKEY_fromdata_init(c) == 1;
    if (ok && EVP_PKEY_fromdata(c, &k, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
        k = NULL;
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(priv);
    EVP_PKEY_CTX_free(c);
    return k;
}

/* The secret own derives with peer (into out, room for 1024 bytes). */
static int derive(EVP_PKEY *own, EVP_PKEY *peer, unsigned char *out, size_t *n) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, own, NULL);
    int ok;
    *n = 1024;
    ok = c && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer(c, peer) == 1 &&
         EVP_PKEY_derive(c, out, n) == 1;
    EVP_PKEY_CTX_free(c);
    return ok;
}

/* A published shared secret from the private key and the peer's public key. */
static char *agreement_kat(const prim *p, const kat *k) {
    EVP_PKEY *own, *peer;
    unsigned char got[1024];
    size_t n = 0;
    char *err = NULL;
    if (is_nist_curve(p)) {
        own = ec_key_from(p, &k->key, NULL);
        peer = ec_key_from(p, NULL, &k->public_);
    } else {
        own = EVP_PKEY_new_raw_private_key_ex(NULL, p->name, NULL, k->key.p, k->key.n);
        peer = EVP_PKEY_new_raw_public_key_ex(NULL, p->name, NULL, k->public_.p, k->public_.n);
    }
    if (!own || !peer)
        err = fmt("the vector's %s keys do not load: %s", p->name, ssl_errors());
    else if (!derive(own, peer, got, &n))
        err = fmt("%s derivation failed: %s", p->name, ssl_errors());
    else if (n != k->out.n || memcmp(got, k->out.p, n) != 0)
        err = mismatch("shared secret", got, n, k->out.p, k->out.n);
    EVP_PKEY_free(own);
    EVP_PKEY_free(peer);
    return err;
}

/* FFDH: own's secret with peer is peer's public value to own's private exponent mod p, computed
 * here outside the library (leading zero bytes do not count). */
static char *ffdh_outside(EVP_PKEY *own, EVP_PKEY *peer, const unsigned char *secret, size_t n) {
    static unsigned char pb[1024], xb[1024], yb[1024];
    size_t len = (size_t)EVP_PKEY_get_size(own), words, x0 = 0;
    num m, x, y, want, got;
    int same;
    if (len == 0 || len > sizeof pb || n > len) return fmt("an FFDH key of %u bytes", (unsigned)len);
    if (!bn_param(own, "p", pb, len) || !bn_param(own, "priv", xb, len) ||
        !bn_param(peer, "pub", yb, len))
        return fmt("cannot read the keys' p, priv and pub: %s", ssl_errors());
    while (x0 < len && xb[x0] == 0) x0++;
    words = len / 4 + 2;
    m = num_from(pb, len, words), y = num_from(yb, len, words);
    x = num_from(xb + x0, len - x0, (len - x0) / 4 + 1);
    want = num_modexp(&y, &x, &m);
    got = num_from(secret, n, words);
    same = memcmp(want.w, got.w, words * sizeof *got.w) == 0;
    free(m.w), free(x.w), free(y.w), free(want.w), free(got.w);
    return same ? NULL : fmt("the shared secret is not pub_b^priv_a mod p");
}

/* Through the timed calls with timing keys: a signature of the 20-byte message verifies and a
 * corrupted one does not; two ECDH or FFDH key pairs derive the same secret both ways (FFDH's
 * checked outside the library too). */
static char *pkey_round_trip(const prim *p) {
    unsigned char tbs[20], a[1024], b[1024];
    size_t an = 0, bn = 0, i;
    char *err = NULL;
    EVP_PKEY *k = timing_pkey(p, &err), *other = NULL;
    for (i = 0; i < sizeof tbs; i++) tbs[i] = (unsigned char)i;
    if (!k) return err;
    if (is(p, "ecdh") || is(p, "ffdh")) {
        if (!(other = timing_pkey(p, &err))) {
        } else if (!derive(k, other, a, &an) || !derive(other, k, b, &bn)) {
            err = fmt("%s derivation failed: %s", p->name, ssl_errors());
        } else if (an == 0 || an != bn || memcmp(a, b, an) != 0) {
            err = fmt("the two directions derived different secrets");
        } else if (is(p, "ffdh")) {
            err = ffdh_outside(k, other, a, an);
        }
    } else if (!pk_sign(p, k, tbs, sizeof tbs, a, &an)) {
        err = fmt("%s signing failed: %s", p->id, ssl_errors());
    } else {
        err = verifies_and_rejects(p, k, tbs, sizeof tbs, a, an, "its own");
    }
    EVP_PKEY_free(k);
    EVP_PKEY_free(other);
    return err;
}

/* The known-answer test of one vector of these families; NULL when it passes. */
static char *pkey_known_answer(const prim *p, const kat *k) {
    if (strcmp(k->kind, "signature-verify") == 0 && !is(p, "ecdh") && !is(p, "ffdh"))
        return signature_verify_kat(p, k);
    if (strcmp(k->kind, "eddsa-sign") == 0 && is(p, "eddsa")) return eddsa_sign_kat(p, k);
    if (strcmp(k->kind, "agreement") == 0 && is(p, "ecdh")) return agreement_kat(p, k);
    if (strcmp(k->kind, "cross-check") == 0) return pkey_round_trip(p);
    return fmt("vector kind %s does not fit %s", k->kind, p->family);
}

/* The key EdDSA's timed loop gives each initialisation: NULL where the library keeps the key
 * already set (the cheaper way), else the key, as the Rust openssl column decides. */
static EVP_PKEY *eddsa_reinit_key(EVP_MD_CTX *m, EVP_PKEY *k, int sign, const unsigned char *tbs,
                                  size_t n, const unsigned char *sig, size_t sig_n) {
    unsigned char out[1024];
    size_t len = sizeof out;
    int works = sign ? EVP_DigestSignInit(m, NULL, NULL, NULL, NULL) == 1 &&
                           EVP_DigestSign(m, out, &len, tbs, n) == 1
                     : EVP_DigestVerifyInit(m, NULL, NULL, NULL, NULL) == 1 &&
                           EVP_DigestVerify(m, sig, sig_n, tbs, n) == 1;
    ERR_clear_error();
    return works ? NULL : k;
}
