//! The slice of libssl's C API (with the libcrypto calls it needs: memory BIOs, DER parsing,
//! errors) that the OpenSSL-family handshake column calls, resolved at run time from the
//! library beside the column's libcrypto, so OpenSSL 3.x, BoringSSL and AWS-LC builds load
//! alike. Where OpenSSL spells a call as an `SSL_CTX_ctrl` macro and BoringSSL as a function
//! (groups, signature algorithms, protocol versions), both are resolved and [`SslApi::ctx_set`]
//! takes whichever the library has.
#![allow(non_snake_case, clippy::type_complexity)]

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_long, c_ulong, c_void};
use std::path::Path;

pub type Ptr = *mut c_void;

pub const TLS1_3_VERSION: u16 = 0x0304;
pub const SSL_VERIFY_PEER: c_int = 1;
pub const SSL_ERROR_WANT_READ: c_int = 2;
pub const TLS_AES_128_GCM_SHA256: u16 = 0x1301;
/// OpenSSL's `SSL_CTX_ctrl` numbers (ssl.h) of what BoringSSL offers as functions.
pub const SSL_CTRL_SET_GROUPS_LIST: c_int = 92;
pub const SSL_CTRL_SET_SIGALGS_LIST: c_int = 98;
pub const SSL_CTRL_SET_MIN_PROTO_VERSION: c_int = 123;
pub const SSL_CTRL_SET_MAX_PROTO_VERSION: c_int = 124;
pub const SSL_CTRL_SET_TLSEXT_HOSTNAME: c_int = 55;
pub const SSL_CTRL_GET_PEER_SIGNATURE_NAME: c_int = 141;
pub const SSL_CTRL_SET_SESS_CACHE_MODE: c_int = 44;
pub const SSL_SESS_CACHE_CLIENT: c_int = 1;
pub const SSL_SENT_SHUTDOWN: c_int = 1;
pub const SSL_RECEIVED_SHUTDOWN: c_int = 2;

crate::dynamic_api! {
    SslApi, "libssl";
    required {
        TLS_method: fn() -> *const c_void;
        SSL_CTX_new: fn(*const c_void) -> Ptr;
        SSL_CTX_free: fn(Ptr);
        SSL_CTX_set_verify: fn(Ptr, c_int, *const c_void);
        SSL_CTX_get_cert_store: fn(Ptr) -> Ptr;
        SSL_CTX_use_certificate_ASN1: fn(Ptr, usize, *const u8) -> c_int;
        SSL_CTX_use_PrivateKey: fn(Ptr, Ptr) -> c_int;
        SSL_CTX_check_private_key: fn(Ptr) -> c_int;
        SSL_new: fn(Ptr) -> Ptr;
        SSL_free: fn(Ptr);
        SSL_set_bio: fn(Ptr, Ptr, Ptr);
        SSL_set_connect_state: fn(Ptr);
        SSL_set_accept_state: fn(Ptr);
        SSL_do_handshake: fn(Ptr) -> c_int;
        SSL_get_error: fn(Ptr, c_int) -> c_int;
        SSL_is_init_finished: fn(Ptr) -> c_int;
        SSL_session_reused: fn(Ptr) -> c_int;
        SSL_get_verify_result: fn(Ptr) -> c_long;
        SSL_get_current_cipher: fn(Ptr) -> *const c_void;
        SSL_CIPHER_get_protocol_id: fn(*const c_void) -> u16;
        SSL_export_keying_material: fn(Ptr, *mut u8, usize, *const c_char, usize, *const u8, usize, c_int) -> c_int;
        SSL_set_session: fn(Ptr, Ptr) -> c_int;
        SSL_SESSION_free: fn(Ptr);
        SSL_CTX_get0_param: fn(Ptr) -> Ptr;
        X509_VERIFY_PARAM_set1_host: fn(Ptr, *const c_char, usize) -> c_int;
        X509_STORE_add_cert: fn(Ptr, Ptr) -> c_int;
        d2i_X509: fn(*mut Ptr, *mut *const u8, c_long) -> Ptr;
        X509_free: fn(Ptr);
        d2i_AutoPrivateKey: fn(*mut Ptr, *mut *const u8, c_long) -> Ptr;
        EVP_PKEY_free: fn(Ptr);
        BIO_s_mem: fn() -> *const c_void;
        BIO_new: fn(*const c_void) -> Ptr;
        BIO_read: fn(Ptr, *mut c_void, c_int) -> c_int;
        BIO_write: fn(Ptr, *const c_void, c_int) -> c_int;
        BIO_ctrl_pending: fn(Ptr) -> usize;
        ERR_get_error: fn() -> c_ulong;
        ERR_error_string_n: fn(c_ulong, *mut c_char, usize);
        ERR_clear_error: fn();
    }
    optional {
        // OpenSSL: the ctrl behind its macros (BoringSSL has no SSL_CTX_ctrl).
        SSL_CTX_ctrl: fn(Ptr, c_int, c_long, *mut c_void) -> c_long;
        SSL_ctrl: fn(Ptr, c_int, c_long, *mut c_void) -> c_long;
        // BoringSSL and AWS-LC: the same settings as functions.
        SSL_CTX_set1_groups_list: fn(Ptr, *const c_char) -> c_int;
        SSL_CTX_set1_sigalgs_list: fn(Ptr, *const c_char) -> c_int;
        SSL_CTX_set_min_proto_version: fn(Ptr, u16) -> c_int;
        SSL_CTX_set_max_proto_version: fn(Ptr, u16) -> c_int;
        SSL_set_tlsext_host_name: fn(Ptr, *const c_char) -> c_int;
        // OpenSSL 1.1.1+: the TLS 1.3 suites offered (BoringSSL's are fixed).
        SSL_CTX_set_ciphersuites: fn(Ptr, *const c_char) -> c_int;
        SSL_CTX_set_num_tickets: fn(Ptr, usize) -> c_int;
        SSL_read: fn(Ptr, *mut c_void, c_int) -> c_int;
        SSL_write: fn(Ptr, *const c_void, c_int) -> c_int;
        SSL_set_shutdown: fn(Ptr, c_int);
        SSL_CTX_sess_set_new_cb: fn(Ptr, Option<unsafe extern "C" fn(Ptr, Ptr) -> c_int>);
        SSL_CTX_set_session_cache_mode: fn(Ptr, c_int) -> c_int;
        // The negotiated group: OpenSSL 3.2+ by name; BoringSSL by id, then its name.
        SSL_get0_group_name: fn(Ptr) -> *const c_char;
        SSL_get_group_id: fn(Ptr) -> u16;
        SSL_get_group_name: fn(u16) -> *const c_char;
        SSL_get_curve_id: fn(Ptr) -> u16;
        SSL_get_curve_name: fn(u16) -> *const c_char;
        // The peer's signature scheme: BoringSSL's code and name (OpenSSL 3.5: SSL_ctrl 141).
        SSL_get_peer_signature_algorithm: fn(Ptr) -> u16;
        SSL_get_signature_algorithm_name: fn(u16, c_int) -> *const c_char;
        OpenSSL_version_num: fn() -> c_ulong;
    }
}

/// A library's setting: OpenSSL's ctrl number, or BoringSSL's function of the same meaning.
pub enum Setting<'a> {
    Groups(&'a str),
    Sigalgs(&'a str),
    MinVersion(u16),
    MaxVersion(u16),
}

/// Why a library holds no libssl and what to do about it.
const NO_LIBSSL_WHY: &str = " (a cryptospeed variant like this was built before libssl was \
kept, or with `no-tls`: rebuild it with `cryptospeed variant build …` without `no-tls`)";

impl SslApi {
    /// Loads the libssl that goes with the libcrypto at `libcrypto`: the same file when it holds
    /// libssl too (a cryptospeed OpenSSL variant that keeps TLS), else the `libssl` named like
    /// it beside it (`libcrypto.so` → `libssl.so`, `libcrypto.so.3` → `libssl.so.3`).
    pub fn beside(libcrypto: &str) -> Result<SslApi, String> {
        let own = SslApi::load(libcrypto);
        if own.is_ok() {
            return own;
        }
        let path = Path::new(libcrypto);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with("libcrypto") {
            return Err(format!(
                "{libcrypto} holds no libssl, and its name does not say where a libssl beside it would be{NO_LIBSSL_WHY}"
            ));
        }
        let ssl_name = name.replacen("libcrypto", "libssl", 1);
        let ssl = path.with_file_name(&ssl_name);
        let ssl = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(_) => ssl.to_string_lossy().into_owned(),
            None => ssl_name,
        };
        SslApi::load(&ssl).map_err(|e| format!("{libcrypto} holds no libssl{NO_LIBSSL_WHY}; {e}"))
    }

    /// Whether the library can say which group and signature scheme a handshake used: BoringSSL
    /// and AWS-LC by their calls, OpenSSL from 3.5 on (`SSL_get0_group_name` came in 3.2,
    /// `SSL_get0_peer_signature_name`'s ctrl in 3.5).
    pub fn reports_what_was_negotiated(&self) -> bool {
        let boring = self.SSL_get_peer_signature_algorithm.is_some()
            && self.SSL_get_signature_algorithm_name.is_some()
            && (self.SSL_get_group_id.is_some() || self.SSL_get_curve_id.is_some());
        // SAFETY: a plain getter.
        let version = self.OpenSSL_version_num.map_or(0, |f| unsafe { f() });
        boring || (self.SSL_get0_group_name.is_some() && version >= 0x3050_0000)
    }

    /// The error queue as text (cleared).
    pub fn errors(&self) -> String {
        let mut out = Vec::new();
        // SAFETY: the buffer is large enough and NUL-terminated by ERR_error_string_n.
        unsafe {
            loop {
                let code = (self.ERR_get_error)();
                if code == 0 {
                    break;
                }
                let mut buf = [0 as c_char; 256];
                (self.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len());
                out.push(CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned());
            }
        }
        match out.is_empty() {
            true => "no error queued".into(),
            false => out.join("; "),
        }
    }

    /// Applies a setting to `ctx` through the function or the ctrl the library has.
    pub fn ctx_set(&self, ctx: Ptr, setting: Setting<'_>) -> Result<(), String> {
        let ok = match setting {
            Setting::Groups(s) => self.list(
                ctx,
                s,
                self.SSL_CTX_set1_groups_list,
                SSL_CTRL_SET_GROUPS_LIST,
            ),
            Setting::Sigalgs(s) => self.list(
                ctx,
                s,
                self.SSL_CTX_set1_sigalgs_list,
                SSL_CTRL_SET_SIGALGS_LIST,
            ),
            Setting::MinVersion(v) => self.version(
                ctx,
                v,
                self.SSL_CTX_set_min_proto_version,
                SSL_CTRL_SET_MIN_PROTO_VERSION,
            ),
            Setting::MaxVersion(v) => self.version(
                ctx,
                v,
                self.SSL_CTX_set_max_proto_version,
                SSL_CTRL_SET_MAX_PROTO_VERSION,
            ),
        }?;
        match ok {
            true => Ok(()),
            false => Err(self.errors()),
        }
    }

    fn list(
        &self,
        ctx: Ptr,
        s: &str,
        f: Option<unsafe extern "C" fn(Ptr, *const c_char) -> c_int>,
        ctrl: c_int,
    ) -> Result<bool, String> {
        let c = CString::new(s).map_err(|e| e.to_string())?;
        // SAFETY: ctx is a live SSL_CTX; the string outlives the call (the library copies it).
        unsafe {
            match (f, self.SSL_CTX_ctrl) {
                (Some(f), _) => Ok(f(ctx, c.as_ptr()) == 1),
                (None, Some(ctl)) => Ok(ctl(ctx, ctrl, 0, c.as_ptr() as *mut c_void) == 1),
                (None, None) => Err("this libssl has neither SSL_CTX_ctrl nor the function".into()),
            }
        }
    }

    fn version(
        &self,
        ctx: Ptr,
        v: u16,
        f: Option<unsafe extern "C" fn(Ptr, u16) -> c_int>,
        ctrl: c_int,
    ) -> Result<bool, String> {
        // SAFETY: ctx is a live SSL_CTX.
        unsafe {
            match (f, self.SSL_CTX_ctrl) {
                (Some(f), _) => Ok(f(ctx, v) == 1),
                (None, Some(ctl)) => Ok(ctl(ctx, ctrl, c_long::from(v), std::ptr::null_mut()) == 1),
                (None, None) => Err("this libssl has neither SSL_CTX_ctrl nor the function".into()),
            }
        }
    }

    /// Sets the session cache mode of `ctx` (a client's sessions reach the new-session
    /// callback only in `SSL_SESS_CACHE_CLIENT` mode).
    pub fn set_cache_mode(&self, ctx: Ptr, mode: c_int) {
        // SAFETY: ctx is a live SSL_CTX.
        unsafe {
            match (self.SSL_CTX_set_session_cache_mode, self.SSL_CTX_ctrl) {
                (Some(f), _) => {
                    f(ctx, mode);
                }
                (None, Some(ctl)) => {
                    ctl(
                        ctx,
                        SSL_CTRL_SET_SESS_CACHE_MODE,
                        c_long::from(mode),
                        std::ptr::null_mut(),
                    );
                }
                (None, None) => {}
            }
        }
    }

    /// The name of the group `ssl` negotiated, as the library spells it.
    pub fn group_name(&self, ssl: Ptr) -> Option<String> {
        // SAFETY: ssl is a live SSL after its handshake; the names are static strings.
        unsafe {
            let name = match (
                self.SSL_get0_group_name,
                self.SSL_get_group_id,
                self.SSL_get_group_name,
            ) {
                (Some(f), _, _) => f(ssl),
                (None, Some(id), Some(name)) => name(id(ssl)),
                _ => match (self.SSL_get_curve_id, self.SSL_get_curve_name) {
                    (Some(id), Some(name)) => name(id(ssl)),
                    _ => std::ptr::null(),
                },
            };
            text(name)
        }
    }

    /// The signature scheme the peer of `ssl` signed its CertificateVerify with (RFC 8446 name).
    pub fn peer_scheme(&self, ssl: Ptr) -> Option<String> {
        // SAFETY: ssl is a live SSL after its handshake; the names are static strings.
        unsafe {
            if let (Some(alg), Some(name)) = (
                self.SSL_get_peer_signature_algorithm,
                self.SSL_get_signature_algorithm_name,
            ) {
                return text(name(alg(ssl), 1));
            }
            let ctrl = self.SSL_ctrl?;
            let mut name: *const c_char = std::ptr::null();
            let got = ctrl(
                ssl,
                SSL_CTRL_GET_PEER_SIGNATURE_NAME,
                0,
                &mut name as *mut *const c_char as *mut c_void,
            );
            (got == 1).then(|| text(name)).flatten()
        }
    }

    /// Sets the server name the client sends (SNI).
    pub fn set_host_name(&self, ssl: Ptr, name: &CStr) {
        // SAFETY: ssl is a live SSL; the library copies the name.
        unsafe {
            match (self.SSL_set_tlsext_host_name, self.SSL_ctrl) {
                (Some(f), _) => {
                    f(ssl, name.as_ptr());
                }
                (None, Some(ctl)) => {
                    ctl(
                        ssl,
                        SSL_CTRL_SET_TLSEXT_HOSTNAME,
                        0,
                        name.as_ptr() as *mut c_void,
                    );
                }
                (None, None) => {}
            }
        }
    }
}

/// A C string the library owns, copied.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> Option<String> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
}
