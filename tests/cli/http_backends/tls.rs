//! https: a private CA (`[memory_model] ca_file`) is trusted, an unknown
//! self-signed certificate is refused.

use std::net::TcpListener;

use ragger::llm::http::{HttpOptions, OpenAiModel};
use ragger::llm::{MemoryModel, ModelError};
use serde_json::json;

use super::{expect_err, opts, request};

/// A one-thread https server on 127.0.0.1 with a fresh self-signed
/// certificate: answers the model list and a chat completion, one request
/// per connection. Returns its base URL and the certificate's PEM.
fn tls_server() -> (String, String) {
    use std::io::{BufRead, BufReader, Read, Write};
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    let pem = cert.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.key_pair.serialize_der().into());
    let config =
        rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.cert.der().clone()], key)
            .unwrap();
    let config = std::sync::Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = BufReader::new(rustls::StreamOwned::new(conn, tcp));
            let mut line = String::new();
            if tls.read_line(&mut line).is_err() {
                continue; // the client refused our certificate
            }
            let path = line.split_whitespace().nth(1).unwrap_or_default().to_string();
            let mut length = 0;
            loop {
                let mut h = String::new();
                if tls.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = tls.read_exact(&mut body);
            let reply = if path.ends_with("/models") {
                json!({"data": [{"id": "fake-model"}]})
            } else {
                json!({"choices": [{"message": {"role": "assistant", "content": "The user asked over https."}}]})
            }
            .to_string();
            let stream = tls.get_mut();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
            let _ = stream.flush();
            stream.conn.send_close_notify();
            let _ = stream.flush();
        }
    });
    (url, pem)
}

#[test]
fn https_works_with_a_private_ca_and_refuses_an_unknown_certificate() {
    let (url, pem) = tls_server();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pem).unwrap();
    let tls = ragger::llm::http::tls_with_ca(&ca).unwrap();
    let model = OpenAiModel::new(HttpOptions { tls: Some(tls), retries: 0, ..opts(url.clone()) });
    model.preflight().unwrap();
    assert_eq!(model.generate(&request()).unwrap().text, "The user asked over https.");

    // The usual web roots do not know a self-signed certificate.
    let model = OpenAiModel::new(HttpOptions { retries: 0, ..opts(url.clone()) });
    let err = expect_err(model.generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.to_lowercase().contains("certificate")), "{err}");

    // A ca_file that holds no certificate is a configuration error.
    std::fs::write(&ca, "not a certificate\n").unwrap();
    let err = ragger::llm::http::tls_with_ca(&ca).unwrap_err();
    assert!(matches!(&err, ModelError::Refused(m) if m.contains("no PEM certificate")), "{err}");
}
