//! The OpenSSL family's libssl as a handshake column: the `openssl`, `boringssl` and `aws-lc`
//! implementations (any build they load: an OpenSSL 3.5 variant that keeps TLS, BoringSSL's or
//! AWS-LC's cmake build, the system OpenSSL 3) time the `tls13-handshake` cells with the libssl
//! that goes with their libcrypto. Each end is an `SSL` over two memory BIOs; a step moves what
//! the other end wrote into this end's read BIO and calls `SSL_do_handshake`, so the handshake
//! loop of this module's parent drives it exactly as it drives rustls. The client offers one
//! group, one signature scheme and (where the library lets it choose) TLS_AES_128_GCM_SHA256,
//! verifies the server's one-link chain and name; the server sends no session tickets.

use super::certs::{self, SERVER_NAME};
use super::libssl_ffi::{Ptr, Setting, SslApi, SSL_ERROR_WANT_READ, SSL_VERIFY_PEER};
use super::libssl_ffi::{SSL_RECEIVED_SHUTDOWN, SSL_SENT_SHUTDOWN, SSL_SESS_CACHE_CLIENT};
use super::libssl_ffi::{TLS1_3_VERSION, TLS_AES_128_GCM_SHA256};
use super::{Ends, HandshakeCell, Negotiated, Side, EXPORT_CONTEXT, EXPORT_LABEL, EXPORT_LEN};
use cryptospeed_catalog::{tls::signature_scheme, Algorithm, Primitive};
use cryptospeed_engine::Timed;
use cryptospeed_model::{CellSpec, Op};
use std::ffi::{c_void, CString};
use std::sync::Mutex;

/// The libssl of the libcrypto at `libcrypto`, loaded once per process (a worker serves one
/// library) and kept for its life.
fn api(libcrypto: &str) -> Result<&'static SslApi, String> {
    type Loaded = Vec<(String, Result<&'static SslApi, String>)>;
    static LOADED: Mutex<Loaded> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().map_err(|e| e.to_string())?;
    if let Some((_, r)) = loaded.iter().find(|(p, _)| p == libcrypto) {
        return r.clone();
    }
    let r = SslApi::beside(libcrypto).map(|a| &*Box::leak(Box::new(a)));
    loaded.push((libcrypto.to_string(), r.clone()));
    r
}

fn cell_of(p: &Primitive) -> Result<(&'static str, &'static str), String> {
    match p.algorithm {
        Algorithm::Tls13Handshake { group, cert } => Ok((group, cert)),
        _ => Err(format!("{} is not a TLS handshake", p.id)),
    }
}

/// A client and a server `SSL_CTX` for one cell.
struct Contexts {
    api: &'static SslApi,
    client: Ptr,
    server: Ptr,
}

impl Drop for Contexts {
    fn drop(&mut self) {
        // SAFETY: both contexts were made by SSL_CTX_new (or are NULL, which it accepts).
        unsafe {
            (self.api.SSL_CTX_free)(self.client);
            (self.api.SSL_CTX_free)(self.server);
        }
    }
}

/// One TLS 1.3 context offering only the cell's group and signature scheme.
fn context(api: &SslApi, group: &str, scheme: &str) -> Result<Ptr, String> {
    // SAFETY: plain constructor calls; the context is freed by the caller's Contexts.
    let ctx = unsafe { (api.SSL_CTX_new)((api.TLS_method)()) };
    if ctx.is_null() {
        return Err(format!("SSL_CTX_new: {}", api.errors()));
    }
    let set = |s: Setting<'_>, what: &str| {
        api.ctx_set(ctx, s)
            .map_err(|e| format!("this libssl does not offer {what} ({e})"))
    };
    let settings = set(Setting::MinVersion(TLS1_3_VERSION), "TLS 1.3")
        .and_then(|_| set(Setting::MaxVersion(TLS1_3_VERSION), "TLS 1.3"))
        .and_then(|_| set(Setting::Groups(group), &format!("the group {group}")))
        .and_then(|_| {
            set(
                Setting::Sigalgs(scheme),
                &format!("the signature scheme {scheme}"),
            )
        });
    if let Err(e) = settings {
        // SAFETY: made above, not shared.
        unsafe { (api.SSL_CTX_free)(ctx) };
        return Err(e);
    }
    if let Some(f) = api.SSL_CTX_set_ciphersuites {
        let suite = CString::new("TLS_AES_128_GCM_SHA256").unwrap();
        // SAFETY: ctx is live; the library copies the string.
        unsafe { f(ctx, suite.as_ptr()) };
    }
    Ok(ctx)
}

/// The cell's contexts: the server holds a fresh certificate and key of the cell's kind (rcgen,
/// as for rustls), the client trusts their root and checks the name.
fn contexts(api: &'static SslApi, p: &Primitive) -> Result<Contexts, String> {
    let (group, cert) = cell_of(p)?;
    let scheme = signature_scheme(cert);
    let mut c = Contexts {
        api,
        client: std::ptr::null_mut(),
        server: std::ptr::null_mut(),
    };
    c.client = context(api, group, scheme)?;
    c.server = context(api, group, scheme)?;
    let made = certs::make(p)?;
    server_identity(api, c.server, &made)?;
    client_trust(api, c.client, &made.root)?;
    if let Some(f) = api.SSL_CTX_set_num_tickets {
        // SAFETY: the server context is live.
        unsafe { f(c.server, 0) };
    }
    Ok(c)
}

fn server_identity(api: &SslApi, ctx: Ptr, made: &certs::ServerCert) -> Result<(), String> {
    // SAFETY: DER buffers outlive the calls; the key is freed after the context took a reference.
    unsafe {
        if (api.SSL_CTX_use_certificate_ASN1)(ctx, made.cert.len(), made.cert.as_ptr()) != 1 {
            return Err(format!("the server certificate: {}", api.errors()));
        }
        let pkcs8 = pkcs8_v1(&made.key);
        let mut der = pkcs8.as_ptr();
        let key = (api.d2i_AutoPrivateKey)(std::ptr::null_mut(), &mut der, pkcs8.len() as _);
        if key.is_null() {
            return Err(format!("the server key (PKCS#8): {}", api.errors()));
        }
        let used = (api.SSL_CTX_use_PrivateKey)(ctx, key);
        (api.EVP_PKEY_free)(key);
        if used != 1 || (api.SSL_CTX_check_private_key)(ctx) != 1 {
            return Err(format!("the server key: {}", api.errors()));
        }
    }
    Ok(())
}

/// An Ed25519 key in the PKCS#8 form every library of the family reads: rcgen writes RFC 5958's
/// version 2 (the public key appended), which BoringSSL and OpenSSL 3.0 refuse; RFC 8410's
/// version 1 holds the same 32-byte seed. Any other key is passed on as it is.
fn pkcs8_v1(key: &[u8]) -> Vec<u8> {
    // SEQUENCE { INTEGER 1, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32) } …
    const V2: &[u8] = &[2, 1, 1, 0x30, 5, 6, 3, 0x2b, 0x65, 0x70, 4, 0x22, 4, 0x20];
    const V1: &[u8] = &[
        0x30, 0x2e, 2, 1, 0, 0x30, 5, 6, 3, 0x2b, 0x65, 0x70, 4, 0x22, 4, 0x20,
    ];
    match key.get(2..2 + V2.len()) {
        Some(head) if head == V2 && key.len() >= 2 + V2.len() + 32 => {
            let seed = &key[2 + V2.len()..2 + V2.len() + 32];
            [V1, seed].concat()
        }
        _ => key.to_vec(),
    }
}

fn client_trust(api: &SslApi, ctx: Ptr, root: &[u8]) -> Result<(), String> {
    let host = CString::new(SERVER_NAME).unwrap();
    // SAFETY: ctx is live; the store takes its own reference to the root; strings are copied.
    unsafe {
        let mut der = root.as_ptr();
        let x = (api.d2i_X509)(std::ptr::null_mut(), &mut der, root.len() as _);
        if x.is_null() {
            return Err(format!("the root certificate: {}", api.errors()));
        }
        let added = (api.X509_STORE_add_cert)((api.SSL_CTX_get_cert_store)(ctx), x);
        (api.X509_free)(x);
        let param = (api.SSL_CTX_get0_param)(ctx);
        let named = (api.X509_VERIFY_PARAM_set1_host)(param, host.as_ptr(), SERVER_NAME.len());
        if added != 1 || named != 1 {
            return Err(format!("the client's trust anchor: {}", api.errors()));
        }
        (api.SSL_CTX_set_verify)(ctx, SSL_VERIFY_PEER, std::ptr::null());
    }
    Ok(())
}

/// One end: an `SSL` that owns its read and write memory BIOs.
struct End {
    api: &'static SslApi,
    ssl: Ptr,
    rbio: Ptr,
    wbio: Ptr,
}

impl End {
    fn new(api: &'static SslApi, ctx: Ptr, side: Side) -> Result<End, String> {
        // SAFETY: ctx is live; SSL_set_bio hands both BIOs to the SSL, which frees them.
        unsafe {
            let ssl = (api.SSL_new)(ctx);
            if ssl.is_null() {
                return Err(format!("SSL_new: {}", api.errors()));
            }
            let rbio = (api.BIO_new)((api.BIO_s_mem)());
            let wbio = (api.BIO_new)((api.BIO_s_mem)());
            (api.SSL_set_bio)(ssl, rbio, wbio);
            let end = End {
                api,
                ssl,
                rbio,
                wbio,
            };
            if rbio.is_null() || wbio.is_null() {
                return Err(format!("BIO_new: {}", api.errors()));
            }
            match side {
                Side::Client => {
                    (api.SSL_set_connect_state)(ssl);
                    api.set_host_name(ssl, &CString::new(SERVER_NAME).unwrap());
                }
                Side::Server => (api.SSL_set_accept_state)(ssl),
            }
            Ok(end)
        }
    }

    /// Takes what this end wrote (its write BIO) into `buf`.
    fn drain(&self, buf: &mut Vec<u8>) {
        buf.clear();
        // SAFETY: the BIO is live; reads go into the vector's spare capacity.
        unsafe {
            let n = (self.api.BIO_ctrl_pending)(self.wbio);
            buf.reserve(n);
            let got = (self.api.BIO_read)(self.wbio, buf.as_mut_ptr() as *mut c_void, n as _);
            buf.set_len(got.max(0) as usize);
        }
    }

    /// Reads `inbox` and advances the handshake; returns the bytes it wrote.
    fn step(&mut self, inbox: &[u8]) -> Result<usize, String> {
        let api = self.api;
        // SAFETY: the SSL and its BIOs are live; the inbox outlives the write (BIO_s_mem copies).
        unsafe {
            if !inbox.is_empty() {
                let n =
                    (api.BIO_write)(self.rbio, inbox.as_ptr() as *const c_void, inbox.len() as _);
                if n as usize != inbox.len() {
                    return Err(format!("BIO_write: {}", api.errors()));
                }
            }
            let r = (api.SSL_do_handshake)(self.ssl);
            if r != 1 && (api.SSL_get_error)(self.ssl, r) != SSL_ERROR_WANT_READ {
                let verify = (api.SSL_get_verify_result)(self.ssl);
                return Err(format!(
                    "SSL_do_handshake: {} (X509 verify result {verify})",
                    api.errors()
                ));
            }
            Ok((api.BIO_ctrl_pending)(self.wbio))
        }
    }

    fn finished(&self) -> bool {
        // SAFETY: the SSL is live.
        unsafe { (self.api.SSL_is_init_finished)(self.ssl) == 1 }
    }

    fn export(&self) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; EXPORT_LEN];
        // SAFETY: buffers are as long as the lengths given.
        let ok = unsafe {
            (self.api.SSL_export_keying_material)(
                self.ssl,
                out.as_mut_ptr(),
                out.len(),
                EXPORT_LABEL.as_ptr() as *const _,
                EXPORT_LABEL.len(),
                EXPORT_CONTEXT.as_ptr(),
                EXPORT_CONTEXT.len(),
                1,
            )
        };
        match ok {
            1 => Ok(out),
            _ => Err(format!("SSL_export_keying_material: {}", self.api.errors())),
        }
    }
}

impl Drop for End {
    fn drop(&mut self) {
        // Closed as after close_notify both ways: OpenSSL marks the session of an SSL freed
        // without it not resumable (ssl_clear_bad_session), which would end resumption.
        // SAFETY: the SSL owns its BIOs; freed once.
        unsafe {
            if let Some(f) = self.api.SSL_set_shutdown {
                f(self.ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
            }
            (self.api.SSL_free)(self.ssl)
        };
    }
}

/// The cell's contexts and the two ends of the current handshake.
pub(super) struct Pair {
    contexts: Contexts,
    client: Option<End>,
    server: Option<End>,
    flight: Vec<u8>,
    /// The session every new client offers (a resumed-handshake cell), owned.
    session: Ptr,
}

impl Pair {
    fn new(contexts: Contexts) -> Pair {
        Pair {
            contexts,
            client: None,
            server: None,
            flight: Vec::with_capacity(16 << 10),
            session: std::ptr::null_mut(),
        }
    }
}

impl Pair {
    /// Both ends of the last handshake say `SSL_session_reused`.
    fn both_resumed(&self) -> Result<(), String> {
        let (Some(c), Some(s)) = (self.client.as_ref(), self.server.as_ref()) else {
            return Err("no finished handshake".into());
        };
        let api = self.contexts.api;
        // SAFETY: both SSLs are live and finished.
        let reused = unsafe {
            (
                (api.SSL_session_reused)(c.ssl),
                (api.SSL_session_reused)(s.ssl),
            )
        };
        if reused != (1, 1) {
            return Err(format!(
                "the handshake did not resume (client {}, server {})",
                reused.0, reused.1
            ));
        }
        Ok(())
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        self.client = None;
        self.server = None;
        if !self.session.is_null() {
            // SAFETY: the session reference taken by SSL_get1_session, released once.
            unsafe { (self.contexts.api.SSL_SESSION_free)(self.session) };
        }
    }
}

impl Ends for Pair {
    fn make(&mut self, side: Side) -> Result<(), String> {
        let c = &self.contexts;
        match side {
            Side::Client => {
                let end = End::new(c.api, c.client, side)?;
                // SAFETY: both live; the SSL takes its own reference to the session.
                if !self.session.is_null()
                    && unsafe { (c.api.SSL_set_session)(end.ssl, self.session) } != 1
                {
                    return Err(format!("SSL_set_session: {}", c.api.errors()));
                }
                self.client = Some(end);
            }
            Side::Server => self.server = Some(End::new(c.api, c.server, side)?),
        }
        Ok(())
    }

    fn step(&mut self, side: Side) -> Result<usize, String> {
        let (Some(client), Some(server)) = (self.client.as_mut(), self.server.as_mut()) else {
            return Err("step before make".into());
        };
        let (me, peer) = match side {
            Side::Client => (client, server),
            Side::Server => (server, client),
        };
        peer.drain(&mut self.flight);
        me.step(&self.flight)
    }

    fn finished(&self) -> bool {
        let done = |e: &Option<End>| e.as_ref().is_some_and(End::finished);
        done(&self.client) && done(&self.server)
    }

    /// A resumed-handshake cell (its clients offer a session): the batch's last handshake
    /// must have resumed on both ends, or the cell timed full handshakes under its name.
    fn after_batch(&mut self) -> Result<(), String> {
        match self.session.is_null() {
            true => Ok(()),
            false => self.both_resumed(),
        }
    }

    fn negotiated(&mut self) -> Result<Negotiated, String> {
        let (Some(c), Some(s)) = (self.client.take(), self.server.take()) else {
            return Err("no finished handshake".into());
        };
        let api = c.api;
        // SAFETY: both SSLs are live and finished.
        let (verified, suite) = unsafe {
            let cipher = (api.SSL_get_current_cipher)(c.ssl);
            let suite = match cipher.is_null() {
                true => 0,
                false => (api.SSL_CIPHER_get_protocol_id)(cipher),
            };
            ((api.SSL_get_verify_result)(c.ssl), suite)
        };
        if verified != 0 {
            return Err(format!(
                "the client's chain verification returned {verified}"
            ));
        }
        if suite != TLS_AES_128_GCM_SHA256 {
            return Err(format!(
                "negotiated cipher suite {suite:#06x}, not TLS_AES_128_GCM_SHA256"
            ));
        }
        Ok(Negotiated {
            group: api.group_name(c.ssl).unwrap_or_default(),
            scheme: api.peer_scheme(c.ssl).unwrap_or_default(),
            client_export: c.export()?,
            server_export: s.export()?,
        })
    }
}

/// Whether the libssl beside `libcrypto` offers the cell: TLS 1.3 with its group and signature
/// scheme (the certificate is tried by the known-answer check).
pub fn availability(libcrypto: &str, p: &Primitive) -> Result<(), String> {
    let api = api(libcrypto)?;
    if !api.reports_what_was_negotiated() {
        return Err(
            "this libssl cannot say which group and signature scheme a handshake used \
                    (OpenSSL 3.5's SSL_get0_group_name and SSL_get0_peer_signature_name, or \
                    BoringSSL's and AWS-LC's calls), so its handshakes cannot be checked"
                .into(),
        );
    }
    let (group, cert) = cell_of(p)?;
    let ctx = context(api, group, signature_scheme(cert))?;
    // SAFETY: made above, not shared.
    unsafe { (api.SSL_CTX_free)(ctx) };
    Ok(())
}

/// The checks before timing (the parent's `check`); returns the bytes of each flight.
pub fn checked_flights(libcrypto: &str, p: &Primitive) -> Result<Vec<usize>, String> {
    let api = api(libcrypto)?;
    let mut pair = Pair::new(contexts(api, p)?);
    let r = super::check(&mut pair, p);
    // SAFETY: clears what a failed check left queued.
    unsafe { (api.ERR_clear_error)() };
    r
}

/// A handshake cell of the libssl beside `libcrypto`; `handshake-resumed` is a whole handshake
/// of a pair whose clients offer the kept session ([`resuming`]).
pub fn prepare(libcrypto: &str, p: &Primitive, cell: &CellSpec) -> Result<Box<dyn Timed>, String> {
    let api = api(libcrypto)?;
    if cell.op == Op::HandshakeResumed {
        let (pair, _) = resuming(api, p)?;
        return Ok(Box::new(HandshakeCell::new(pair, Op::Handshake)?));
    }
    Ok(Box::new(HandshakeCell::new(
        Pair::new(contexts(api, p)?),
        cell.op,
    )?))
}

/// A pair whose clients resume a session: one full handshake with the server issuing a ticket,
/// the client reading it (`SSL_read` takes the NewSessionTicket) and its session kept; then the
/// server issues no more tickets. Checked by one resumed handshake: both ends say they resumed,
/// the group is the cell's (PSK with (EC)DHE still exchanges a key share), the exporters agree.
/// Returns the pair and the bytes of that resumed handshake's flights.
fn resuming(api: &'static SslApi, p: &Primitive) -> Result<(Pair, Vec<usize>), String> {
    let (group, _) = cell_of(p)?;
    let needed = (api.SSL_CTX_set_num_tickets, api.SSL_CTX_sess_set_new_cb);
    let (Some(tickets), Some(on_session), Some(read), Some(write)) =
        (needed.0, needed.1, api.SSL_read, api.SSL_write)
    else {
        return Err(
            "this libssl cannot set a server's tickets or hand a client its sessions".into(),
        );
    };
    let mut pair = Pair::new(contexts(api, p)?);
    let (client_ctx, server_ctx) = (pair.contexts.client, pair.contexts.server);
    api.set_cache_mode(client_ctx, SSL_SESS_CACHE_CLIENT);
    NEW_SESSION.with(|s| s.set(std::ptr::null_mut()));
    // SAFETY: the contexts are live; the callback only keeps the first session it is handed.
    unsafe {
        tickets(server_ctx, 1);
        on_session(client_ctx, Some(keep_new_session));
    }
    super::handshake(&mut pair, &mut super::unclocked, None)?;
    let (Some(client), Some(server)) = (pair.client.as_mut(), pair.server.as_mut()) else {
        return Err("no finished handshake".into());
    };
    // The ticket: written after the client's Finished (OpenSSL) or held until the server
    // writes (BoringSSL, AWS-LC): the server writes one byte, and the client's SSL_read takes
    // the ticket on its way to that byte.
    let mut byte = b'x';
    // SAFETY: both SSLs and their BIOs are live; one byte each way.
    unsafe {
        write(server.ssl, &byte as *const u8 as *const c_void, 1);
        server.drain(&mut pair.flight);
        (api.BIO_write)(
            client.rbio,
            pair.flight.as_ptr() as *const c_void,
            pair.flight.len() as _,
        );
        read(client.ssl, &mut byte as *mut u8 as *mut c_void, 1);
        (api.ERR_clear_error)();
        on_session(client_ctx, None);
        tickets(server_ctx, 0);
    }
    api.set_cache_mode(client_ctx, 0);
    pair.session = NEW_SESSION.with(|s| s.replace(std::ptr::null_mut()));
    if pair.session.is_null() {
        return Err("the client received no session ticket".into());
    }
    let mut flights = Vec::new();
    super::handshake(&mut pair, &mut super::unclocked, Some(&mut flights))?;
    pair.both_resumed()?;
    let (c, s) = (pair.client.as_ref().unwrap(), pair.server.as_ref().unwrap());
    let got = api.group_name(c.ssl).unwrap_or_default();
    if !got.eq_ignore_ascii_case(group) {
        return Err(format!(
            "the resumed handshake used group {got} where {group} was asked for"
        ));
    }
    if c.export()? != s.export()? {
        return Err("the ends' exported keying material differs (RFC 8446 7.5)".into());
    }
    Ok((pair, flights))
}

thread_local! {
    /// The session a client was handed by its library's new-session callback.
    static NEW_SESSION: std::cell::Cell<Ptr> = const { std::cell::Cell::new(std::ptr::null_mut()) };
}

/// The new-session callback: keeps the first session (taking the library's reference: 1);
/// declines any later one (0: the library keeps and frees it).
unsafe extern "C" fn keep_new_session(_ssl: Ptr, session: Ptr) -> std::os::raw::c_int {
    NEW_SESSION.with(|s| match s.get().is_null() {
        true => {
            s.set(session);
            1
        }
        false => 0,
    })
}

/// The checks of a resumed handshake ([`resuming`]); returns the bytes of each flight.
pub fn checked_resumed_flights(libcrypto: &str, p: &Primitive) -> Result<Vec<usize>, String> {
    let api = api(libcrypto)?;
    let r = resuming(api, p).map(|(_, flights)| flights);
    // SAFETY: clears what a failed check left queued.
    unsafe { (api.ERR_clear_error)() };
    r
}
