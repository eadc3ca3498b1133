//! Every HTTP client calltape builds starts here: TLS through rustls on
//! *ring* (smaller and quicker to build than aws-lc-rs, which reqwest
//! would otherwise bring: about 2 MB of the binary and a C build), and
//! redirects followed only within one origin.

use std::sync::Once;

/// A client builder with calltape's TLS provider installed and its redirect policy set.
pub fn builder() -> reqwest::ClientBuilder {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        // Fails only when a provider is already installed, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder().redirect(super::redirect::same_origin_only())
}
