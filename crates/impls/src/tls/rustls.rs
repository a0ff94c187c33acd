//! rustls (crates.io) as a TLS column, over each of its two crypto providers: `rustls-aws-lc-rs`
//! (AWS-LC through aws-lc-rs: X25519, the hybrids X25519MLKEM768 and SecP256r1MLKEM768, MLKEM768
//! alone, ML-DSA certificates) and `rustls-ring` (ring: X25519). Each cell's provider offers
//! exactly the cell's group and TLS_AES_128_GCM_SHA256; the client verifies the server's chain
//! with rustls's WebPKI verifier, offering only the cell's signature scheme.

use super::certs::{self, SERVER_NAME};
use super::{Ends, HandshakeCell, Negotiated, Side, EXPORT_CONTEXT, EXPORT_LABEL, EXPORT_LEN};
use crate::declared::Declared;
use crate::ImplOptions;
use cryptospeed_catalog::{Algorithm, Family, Primitive};
use cryptospeed_engine::{Implementation, Timed};
use cryptospeed_model::{CellSpec, Op, Variant};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, ServerConfig};
use rustls::{ServerConnection, SignatureScheme};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;

mod resumed;

pub const DECLARED: &[Declared] = &[Declared {
    kinds: &["tls13-handshake"],
    ops: &[Op::HandshakeResumed],
    note: crate::declared::Conformance::Deviates(
        "rustls gives each TLS 1.3 ticket out once: each call offers a ticket of its own, all \
         minted before the batch, outside the clock, by one full handshake whose server issued them",
    ),
}];

/// Which of rustls's providers a column uses.
#[derive(Clone, Copy)]
enum Provider {
    AwsLcRs,
    Ring,
}

pub struct Rustls {
    provider: Provider,
    flights: super::CheckedFlights,
}

pub fn create_aws_lc_rs(_: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    Ok(Box::new(Rustls {
        provider: Provider::AwsLcRs,
        flights: Default::default(),
    }))
}

pub fn create_ring(_: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    Ok(Box::new(Rustls {
        provider: Provider::Ring,
        flights: Default::default(),
    }))
}

impl Provider {
    fn base(self) -> CryptoProvider {
        match self {
            Provider::AwsLcRs => rustls::crypto::aws_lc_rs::default_provider(),
            Provider::Ring => rustls::crypto::ring::default_provider(),
        }
    }

    fn group(self, name: &str) -> Option<&'static dyn SupportedKxGroup> {
        use rustls::crypto::{aws_lc_rs::kx_group as a, ring::kx_group as r};
        match (self, name) {
            (Provider::AwsLcRs, "X25519") => Some(a::X25519),
            (Provider::AwsLcRs, "X25519MLKEM768") => Some(a::X25519MLKEM768),
            (Provider::AwsLcRs, "SecP256r1MLKEM768") => Some(a::SECP256R1MLKEM768),
            (Provider::AwsLcRs, "MLKEM768") => Some(a::MLKEM768),
            (Provider::Ring, "X25519") => Some(r::X25519),
            _ => None,
        }
    }

    /// The provider reduced to the cell's group and one TLS 1.3 cipher suite.
    fn for_cell(self, group: &str) -> Result<Arc<CryptoProvider>, String> {
        let kx = self
            .group(group)
            .ok_or_else(|| format!("this rustls provider has no {group} key exchange"))?;
        let base = self.base();
        let suite = base
            .cipher_suites
            .iter()
            .find(|s| s.suite() == rustls::CipherSuite::TLS13_AES_128_GCM_SHA256)
            .copied()
            .ok_or("the provider has no TLS_AES_128_GCM_SHA256")?;
        Ok(Arc::new(CryptoProvider {
            cipher_suites: vec![suite],
            kx_groups: vec![kx],
            ..base
        }))
    }
}

/// The TLS 1.3 signature scheme of a certificate kind (its RFC 8446 name is the catalog's
/// `tls::signature_scheme`).
fn scheme(cert: &str) -> Option<SignatureScheme> {
    Some(match cert {
        "ECDSA-P256" => SignatureScheme::ECDSA_NISTP256_SHA256,
        "Ed25519" => SignatureScheme::ED25519,
        "RSA-2048" => SignatureScheme::RSA_PSS_SHA256,
        "ML-DSA-65" => SignatureScheme::ML_DSA_65,
        _ => return None,
    })
}

/// rustls's WebPKI verifier, offering one signature scheme and recording the one it verified.
#[derive(Debug)]
struct OneScheme {
    inner: Arc<WebPkiServerVerifier>,
    scheme: SignatureScheme,
    verified: AtomicU16,
}

impl ServerCertVerifier for OneScheme {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verified
            .store(u16::from(dss.scheme), Ordering::Relaxed);
        self.inner.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![self.scheme]
    }
}

/// A rustls client and server configuration for one cell, and the ends of the handshake.
struct Pair {
    client_config: Arc<ClientConfig>,
    server_config: Arc<ServerConfig>,
    verifier: Arc<OneScheme>,
    client: Option<ClientConnection>,
    server: Option<ServerConnection>,
    /// What the client wrote and the server has not read yet, and the other way round.
    to_server: Vec<u8>,
    to_client: Vec<u8>,
}

fn configure(provider: Provider, p: &Primitive) -> Result<Pair, String> {
    let Algorithm::Tls13Handshake { group, cert } = p.algorithm else {
        return Err(format!("{} is not a TLS handshake", p.id));
    };
    let wanted = scheme(cert).ok_or_else(|| format!("no signature scheme for {cert}"))?;
    let provider = provider.for_cell(group)?;
    let made = certs::make(p)?;
    let e = |e: rustls::Error| e.to_string();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(made.root)).map_err(e)?;
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| e.to_string())?;
    let verifier = Arc::new(OneScheme {
        inner,
        scheme: wanted,
        verified: AtomicU16::new(0),
    });
    let client_config = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(e)?
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.key));
    let mut server_config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(e)?
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(made.cert)], key)
        .map_err(e)?;
    server_config.send_tls13_tickets = 0;
    Ok(Pair {
        client_config: Arc::new(client_config),
        server_config: Arc::new(server_config),
        verifier,
        client: None,
        server: None,
        to_server: Vec::with_capacity(16 << 10),
        to_client: Vec::with_capacity(16 << 10),
    })
}

/// Feeds `inbox` to a connection, then writes what it has to send into `outbox`.
fn exchange<D>(
    conn: &mut rustls::ConnectionCommon<D>,
    inbox: &mut Vec<u8>,
    outbox: &mut Vec<u8>,
) -> Result<usize, String> {
    let mut rd = &inbox[..];
    while !rd.is_empty() {
        conn.read_tls(&mut rd).map_err(|e| e.to_string())?;
        conn.process_new_packets().map_err(|e| e.to_string())?;
    }
    inbox.clear();
    let mut n = 0;
    while conn.wants_write() {
        n += conn.write_tls(outbox).map_err(|e| e.to_string())?;
    }
    Ok(n)
}

impl Ends for Pair {
    fn make(&mut self, side: Side) -> Result<(), String> {
        self.to_server.clear();
        self.to_client.clear();
        match side {
            Side::Client => {
                let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
                self.client = Some(
                    ClientConnection::new(self.client_config.clone(), name)
                        .map_err(|e| e.to_string())?,
                );
            }
            Side::Server => {
                self.server = Some(
                    ServerConnection::new(self.server_config.clone()).map_err(|e| e.to_string())?,
                );
            }
        }
        Ok(())
    }

    fn step(&mut self, side: Side) -> Result<usize, String> {
        let missing = || "step before make".to_string();
        match side {
            Side::Client => {
                let c = self.client.as_mut().ok_or_else(missing)?;
                exchange(c, &mut self.to_client, &mut self.to_server)
            }
            Side::Server => {
                let s = self.server.as_mut().ok_or_else(missing)?;
                exchange(s, &mut self.to_server, &mut self.to_client)
            }
        }
    }

    fn finished(&self) -> bool {
        let done = |h: Option<bool>| h == Some(false);
        done(self.client.as_ref().map(|c| c.is_handshaking()))
            && done(self.server.as_ref().map(|s| s.is_handshaking()))
    }

    fn negotiated(&mut self) -> Result<Negotiated, String> {
        let (c, s) = match (self.client.take(), self.server.take()) {
            (Some(c), Some(s)) => (c, s),
            _ => return Err("no finished handshake".into()),
        };
        let group = c
            .negotiated_key_exchange_group()
            .map(|g| format!("{:?}", g.name()))
            .unwrap_or_default();
        let verified = SignatureScheme::from(self.verifier.verified.load(Ordering::Relaxed));
        let scheme = scheme_name(verified);
        let export = |r: Result<[u8; EXPORT_LEN], rustls::Error>| r.map_err(|e| e.to_string());
        Ok(Negotiated {
            group: normalise_group(&group),
            scheme,
            client_export: export(c.export_keying_material(
                [0; EXPORT_LEN],
                EXPORT_LABEL,
                Some(EXPORT_CONTEXT),
            ))?
            .to_vec(),
            server_export: export(s.export_keying_material(
                [0; EXPORT_LEN],
                EXPORT_LABEL,
                Some(EXPORT_CONTEXT),
            ))?
            .to_vec(),
        })
    }
}

/// rustls's debug name of a group as IANA spells it (`secp256r1MLKEM768` → `SecP256r1MLKEM768`).
fn normalise_group(debug: &str) -> String {
    match debug {
        "secp256r1MLKEM768" => "SecP256r1MLKEM768".into(),
        other => other.into(),
    }
}

/// The RFC 8446 name of the scheme rustls verified, from the catalog (its Debug form if unknown).
fn scheme_name(s: SignatureScheme) -> String {
    ["ECDSA-P256", "Ed25519", "RSA-2048", "ML-DSA-65"]
        .into_iter()
        .find(|c| scheme(c) == Some(s))
        .map_or_else(
            || format!("{s:?}"),
            |c| cryptospeed_catalog::tls::signature_scheme(c).to_string(),
        )
}

impl Rustls {
    fn column(&self) -> &'static str {
        match self.provider {
            Provider::AwsLcRs => "rustls-aws-lc-rs",
            Provider::Ring => "rustls-ring",
        }
    }
}

impl Implementation for Rustls {
    fn name(&self) -> &'static str {
        self.column()
    }

    fn describe(&self) -> Variant {
        let provider = match self.provider {
            Provider::AwsLcRs => "aws-lc-rs 1 (aws-lc-sys 0.47)",
            Provider::Ring => "ring 0.17",
        };
        Variant {
            label: self.column().into(),
            implementation: self.column().into(),
            version: format!("rustls 0.23 with the {provider} provider"),
            library: "statically linked into cryptospeed".into(),
            ..Default::default()
        }
    }

    fn availability(&mut self, p: &Primitive) -> Result<(), String> {
        let Algorithm::Tls13Handshake { group, cert } = p.algorithm else {
            return Err(format!("{} times TLS handshakes only", self.column()));
        };
        self.provider.for_cell(group)?;
        if matches!(self.provider, Provider::Ring) && cert == "ML-DSA-65" {
            return Err("ring has no ML-DSA".into());
        }
        scheme(cert)
            .map(drop)
            .ok_or_else(|| format!("no {cert} certificates"))
    }

    fn known_answer_test(&mut self, p: &Primitive) -> Result<(), String> {
        self.flights.keep(p, wire_bytes(self.provider, p))
    }

    fn checked_flights(&self, p: &Primitive) -> Vec<u64> {
        self.flights.of(p)
    }

    fn prepare(&mut self, p: &Primitive, cell: &CellSpec) -> Result<Box<dyn Timed + '_>, String> {
        if p.family() != Family::Handshake {
            return Err(format!("{} is not a TLS handshake", p.id));
        }
        if cell.op == Op::HandshakeResumed {
            let (ends, _) = resumed::checked(self.provider, p)?;
            return Ok(Box::new(HandshakeCell::new(ends, Op::Handshake)?));
        }
        Ok(Box::new(HandshakeCell::new(
            configure(self.provider, p)?,
            cell.op,
        )?))
    }
}

/// The client and server configurations of column `name`'s cell `p` (for handshakes over
/// sockets, `tls::net`).
pub fn configs(
    name: &str,
    p: &Primitive,
) -> Result<(Arc<ClientConfig>, Arc<ServerConfig>), String> {
    let provider = match name {
        "rustls-aws-lc-rs" => Provider::AwsLcRs,
        "rustls-ring" => Provider::Ring,
        _ => return Err(format!("{name} is not a rustls column")),
    };
    let pair = configure(provider, p)?;
    Ok((pair.client_config, pair.server_config))
}

fn wire_bytes(provider: Provider, p: &Primitive) -> Result<Vec<usize>, String> {
    let mut pair = configure(provider, p)?;
    super::check(&mut pair, p)
}

/// The checks of one handshake of column `name` (`rustls-aws-lc-rs`, `rustls-ring`), and the
/// bytes each step wrote: ClientHello, the server's flight, the client's Finished, then 0.
pub fn checked_flights(name: &str, p: &Primitive) -> Result<Vec<usize>, String> {
    let provider = match name {
        "rustls-aws-lc-rs" => Provider::AwsLcRs,
        "rustls-ring" => Provider::Ring,
        _ => return Err(format!("{name} is not a rustls column")),
    };
    wire_bytes(provider, p)
}

/// The checks of a resumed handshake of column `name` (`rustls-aws-lc-rs`, `rustls-ring`): it
/// resumed on both ends, with the cell's group, the exporters agreeing; the bytes each step wrote.
pub fn checked_resumed_flights(name: &str, p: &Primitive) -> Result<Vec<usize>, String> {
    let provider = match name {
        "rustls-aws-lc-rs" => Provider::AwsLcRs,
        "rustls-ring" => Provider::Ring,
        _ => return Err(format!("{name} is not a rustls column")),
    };
    resumed::checked(provider, p).map(|(_, flights)| flights)
}
