//! Server certificates for the handshake cells, made at set-up with rcgen (no key is checked in):
//! a root and a server certificate for `localhost` issued by it, both of the cell's key type,
//! so the client verifies a one-link chain as a real client does.

use cryptospeed_catalog::{Algorithm, Primitive};
use rcgen::{BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer};
use rcgen::{KeyPair, SignatureAlgorithm};

/// What a server and its client need: the server's chain and key, the client's trust anchor.
pub struct ServerCert {
    /// The server certificate (DER), issued by `root`.
    pub cert: Vec<u8>,
    /// The server's private key (PKCS#8 DER).
    pub key: Vec<u8>,
    /// The root certificate (DER) the client trusts.
    pub root: Vec<u8>,
}

/// The name the server certificate is issued for and the client connects to.
pub const SERVER_NAME: &str = "localhost";

fn algorithm(cert: &str) -> Result<&'static SignatureAlgorithm, String> {
    Ok(match cert {
        "ECDSA-P256" => &rcgen::PKCS_ECDSA_P256_SHA256,
        "Ed25519" => &rcgen::PKCS_ED25519,
        "RSA-2048" => &rcgen::PKCS_RSA_SHA256,
        "ML-DSA-65" => &rcgen::PKCS_ML_DSA_65,
        _ => return Err(format!("no certificate of kind {cert}")),
    })
}

/// Makes a fresh root and server certificate of the key type `p` names.
pub fn make(p: &Primitive) -> Result<ServerCert, String> {
    let Algorithm::Tls13Handshake { cert, .. } = p.algorithm else {
        return Err(format!("{} is not a TLS handshake", p.id));
    };
    let alg = algorithm(cert)?;
    let err = |e: rcgen::Error| format!("rcgen: {e}");
    let root_key = KeyPair::generate_for(alg).map_err(err)?;
    let mut root_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    root_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    // Names of their own: with rcgen's default subject on both, the server certificate's issuer
    // would equal its subject, and OpenSSL's verifier takes such a certificate as self-signed.
    root_params.distinguished_name = name("cryptospeed handshake root");
    let root = root_params.self_signed(&root_key).map_err(err)?;
    let key = KeyPair::generate_for(alg).map_err(err)?;
    let mut params = CertificateParams::new(vec![SERVER_NAME.to_string()]).map_err(err)?;
    params.distinguished_name = name(SERVER_NAME);
    let issuer = Issuer::new(root_params, root_key);
    let server = params.signed_by(&key, &issuer).map_err(err)?;
    Ok(ServerCert {
        cert: server.der().to_vec(),
        key: key.serialize_der(),
        root: root.der().to_vec(),
    })
}

fn name(common_name: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    dn
}
