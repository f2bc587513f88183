//! TLS between controller and worker: the client trusts exactly the pinned certificate (SHA-256
//! of its DER) or a CA file; a worker can make itself a self-signed certificate whose
//! fingerprint the controller pins.

use std::path::Path;
use std::sync::Arc;

use cu_core::config::MachineConfig;
use cu_core::{Error, ErrorCode};

use crate::SelfSigned;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use sha2::{Digest, Sha256};
use tokio_rustls::rustls;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{
    verify_tls12_signature, verify_tls13_signature, CryptoProvider,
};
use tokio_rustls::rustls::{DigitallySignedStruct, SignatureScheme};

fn bad(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::ConfigInvalid, format!("TLS: {what}"))
}

/// Makes ring the process's rustls provider (reqwest asks for one even for plain http).
pub fn install_provider() {
    // Err means one is installed already, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// SHA-256 of a DER certificate, lower-case hex.
pub fn fingerprint(der: &[u8]) -> String {
    Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Set when a machine's certificate was refused: not the pinned one, or not signed by the
/// configured CA (so the failure can say so).
pub type Mismatch = Arc<std::sync::atomic::AtomicBool>;

/// The client configuration for one machine: its pinned fingerprint, or its CA.
pub fn client_config(
    machine: &MachineConfig,
    mismatch: &Mismatch,
) -> Result<rustls::ClientConfig, Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(bad)?;
    if let Some(pinned) = &machine.fingerprint {
        let verifier = Pinned {
            fingerprint: pinned.clone(),
            provider,
            mismatch: mismatch.clone(),
        };
        return Ok(builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth());
    }
    let Some(ca) = &machine.ca_file else {
        return Err(bad(format!(
            "machine {} has neither fingerprint nor ca_file",
            machine.name
        )));
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in
        CertificateDer::pem_file_iter(ca).map_err(|e| bad(format!("{}: {e}", ca.display())))?
    {
        let cert = cert.map_err(|e| bad(format!("{}: {e}", ca.display())))?;
        roots
            .add(cert)
            .map_err(|e| bad(format!("{}: {e}", ca.display())))?;
    }
    let inner =
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| bad(format!("{}: {e}", ca.display())))?;
    let verifier = Signed {
        inner,
        mismatch: mismatch.clone(),
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// Trusts what the configured CA signed, exactly as rustls's WebPKI verifier judges it, and
/// flags a refused certificate (so the failure says so without reading error text).
#[derive(Debug)]
struct Signed {
    inner: Arc<rustls::client::WebPkiServerVerifier>,
    mismatch: Mismatch,
}

impl ServerCertVerifier for Signed {
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
            .inspect_err(|_| {
                self.mismatch
                    .store(true, std::sync::atomic::Ordering::SeqCst)
            })
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
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// Trusts one certificate, by fingerprint; signatures are still verified.
#[derive(Debug)]
struct Pinned {
    fingerprint: String,
    provider: Arc<CryptoProvider>,
    mismatch: Mismatch,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let seen = fingerprint(end_entity.as_ref());
        if seen == self.fingerprint {
            Ok(ServerCertVerified::assertion())
        } else {
            self.mismatch
                .store(true, std::sync::atomic::Ordering::SeqCst);
            Err(rustls::Error::General(format!(
                "certificate fingerprint {seen} is not the pinned one"
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Makes (or reuses) a self-signed certificate for `names` in `dir`.
pub fn self_signed(dir: &Path, names: &[String]) -> Result<SelfSigned, Error> {
    let cert = dir.join("worker-cert.pem");
    let key = dir.join("worker-key.pem");
    if !(cert.is_file() && key.is_file()) {
        std::fs::create_dir_all(dir).map_err(|e| bad(format!("{}: {e}", dir.display())))?;
        let made = rcgen::generate_simple_self_signed(names.to_vec()).map_err(bad)?;
        write_private(&key, made.signing_key.serialize_pem().as_bytes())?;
        write_private(&cert, made.cert.pem().as_bytes())?;
    }
    let der = CertificateDer::from_pem_file(&cert)
        .map_err(|e| bad(format!("{}: {e}", cert.display())))?;
    Ok(SelfSigned {
        fingerprint: fingerprint(der.as_ref()),
        cert,
        key,
    })
}

/// Writes through a temporary file (never half a key), readable by the owner only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let tmp = path.with_extension("partial");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let written = options.open(&tmp).and_then(|mut f| {
        use std::io::Write as _;
        f.write_all(bytes)?;
        f.sync_all()
    });
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| bad(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_signed_certificate_is_made_once_and_its_fingerprint_is_stable() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["localhost".to_owned(), "10.0.0.2".to_owned()];
        let first = self_signed(dir.path(), &names).unwrap();
        let again = self_signed(dir.path(), &names).unwrap();
        assert_eq!(first.fingerprint, again.fingerprint);
        assert_eq!(first.fingerprint.len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&first.key).map(|m| m.permissions().mode() & 0o777);
            assert_eq!(mode.ok(), Some(0o600));
        }
    }
}
