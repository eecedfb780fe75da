//! [`HttpSender`]: the domain's [`WebhookSender`] over reqwest. Each message goes to
//! the addresses the delivery worker checked, and to no other: the client is pinned to
//! them (`resolve_to_addrs`), so a second DNS answer cannot lead it elsewhere, and no
//! proxy is used. No redirect is followed, the whole attempt keeps its timeout, and
//! the answer's body is read only up to the excerpt kept.
//!
//! A client is made once per pinning (host, port, checked addresses, timeout) and kept:
//! making one loads the system's root certificates, which cost more than the POST
//! itself, and a kept client reuses its connections to the receiver. Another DNS
//! answer is another pinning, so no client reaches an address that was not checked.

use std::error::Error as _;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use async_trait::async_trait;
use reqwest::Client;
use reqwest::header::CONTENT_TYPE;
use reqwest::redirect::Policy;
use rics_domain::webhook::WebhookSender;
use rics_domain::webhook::delivery::MAX_RESPONSE_EXCERPT;
use rics_domain::webhook::dispatch::{WebhookRequest, WebhookResponse};

/// How many pinned clients are kept: more than the endpoints a busy deployment
/// delivers to at once, and each holds only its idle connections.
const KEPT_CLIENTS: usize = 256;

/// What a client is pinned to: the host, the port, the addresses checked for it (in
/// order), and the attempt's timeout.
type Pinning = (String, u16, Vec<IpAddr>, Duration);

/// Posts webhook messages over HTTP(S), with rustls and the system's root
/// certificates.
pub struct HttpSender {
    clients: quick_cache::sync::Cache<Pinning, Client>,
}

impl Default for HttpSender {
    fn default() -> HttpSender {
        HttpSender {
            clients: quick_cache::sync::Cache::new(KEPT_CLIENTS),
        }
    }
}

impl HttpSender {
    /// The client for `request`'s pinning, made on first use: its host pinned to the
    /// checked addresses, no redirect, no proxy, its timeout.
    fn client(&self, request: &WebhookRequest) -> Result<Client, String> {
        let mut addresses = request.addresses.clone();
        addresses.sort_unstable();
        addresses.dedup();
        let pinning = (
            request.host.clone(),
            request.port,
            addresses,
            request.timeout,
        );
        self.clients.get_or_insert_with(&pinning, || {
            let pinned: Vec<SocketAddr> = pinning
                .2
                .iter()
                .map(|ip| SocketAddr::new(*ip, request.port))
                .collect();
            Client::builder()
                .redirect(Policy::none())
                .no_proxy()
                .connect_timeout(request.timeout)
                .timeout(request.timeout)
                .user_agent(concat!("rics-webhooks/", env!("CARGO_PKG_VERSION")))
                .resolve_to_addrs(&request.host, &pinned)
                .build()
                .map_err(|e| format!("the HTTP client cannot be made: {}", describe(&e)))
        })
    }
}

#[async_trait]
impl WebhookSender for HttpSender {
    async fn post(&self, request: &WebhookRequest) -> Result<WebhookResponse, String> {
        if request.addresses.is_empty() {
            return Err(format!("'{}' leads to no address", request.host));
        }
        let client = self.client(request)?;
        let mut builder = client
            .post(&request.url)
            .header(CONTENT_TYPE, "application/json")
            .body(request.body.clone());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        let exchange = async {
            let mut response = builder.send().await.map_err(|e| describe(&e))?;
            let status = response.status().as_u16();
            let mut body = Vec::new();
            // Only the excerpt is read; the rest of the body is dropped with the
            // connection. A body that breaks off keeps what came.
            while body.len() < MAX_RESPONSE_EXCERPT {
                match response.chunk().await {
                    Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                    Ok(None) | Err(_) => break,
                }
            }
            Ok(WebhookResponse {
                status,
                excerpt: excerpt(&body),
            })
        };
        tokio::time::timeout(request.timeout, exchange)
            .await
            .map_err(|_| format!("no answer within {:?}", request.timeout))?
    }
}

/// The start of `body` as text, at most [`MAX_RESPONSE_EXCERPT`] bytes, cut at a
/// character boundary (bytes that are not UTF-8 become U+FFFD).
fn excerpt(body: &[u8]) -> String {
    let cut = body.get(..MAX_RESPONSE_EXCERPT).unwrap_or(body);
    let mut text = String::from_utf8_lossy(cut).into_owned();
    while text.len() > MAX_RESPONSE_EXCERPT {
        text.pop();
    }
    text
}

/// A reqwest error with its causes (reqwest's own message names only the URL).
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "no answer within the timeout".to_owned()
    } else {
        error.to_string()
    };
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;
    use tokio::sync::oneshot;

    use super::*;

    /// A receiver on 127.0.0.1 that reads one request, hands its text over, and
    /// answers with `head` followed by `body_bytes` bytes of `x` (none when `None`:
    /// then it never answers).
    async fn receiver(head: Option<String>, body_bytes: usize) -> (u16, oneshot::Receiver<String>) {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tell, told) = oneshot::channel();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buffer = [0u8; 4096];
            while !String::from_utf8_lossy(&seen).contains("\"end\"") {
                let read = stream.read(&mut buffer).await.unwrap();
                if read == 0 {
                    break;
                }
                seen.extend_from_slice(&buffer[..read]);
            }
            let _ = tell.send(String::from_utf8_lossy(&seen).into_owned());
            let Some(head) = head else {
                tokio::time::sleep(Duration::from_secs(30)).await;
                return;
            };
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 * 1024];
            let mut left = body_bytes;
            while left > 0 {
                let size = left.min(chunk.len());
                if stream.write_all(&chunk[..size]).await.is_err() {
                    return;
                }
                left -= size;
            }
        });
        (port, told)
    }

    fn request(host: &str, port: u16, timeout: Duration) -> WebhookRequest {
        WebhookRequest {
            url: format!("http://{host}:{port}/hook"),
            host: host.to_owned(),
            addresses: vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
            port,
            headers: vec![("webhook-id", "msg_1".to_owned())],
            body: r#"{"type":"end"}"#.to_owned(),
            timeout,
        }
    }

    #[tokio::test]
    async fn a_2xx_answer_comes_back_from_the_pinned_address_with_its_excerpt() {
        let (port, told) = receiver(Some("HTTP/1.1 204 No Content\r\n\r\n".to_owned()), 0).await;
        // The name does not resolve: only the pinned address can be reached.
        let answer = HttpSender::default()
            .post(&request("hooks.invalid", port, Duration::from_secs(5)))
            .await
            .unwrap();
        assert_eq!(answer.status, 204);
        assert_eq!(answer.excerpt, "");
        let seen = told.await.unwrap().to_ascii_lowercase();
        assert!(seen.starts_with("post /hook http/1.1"), "{seen}");
        assert!(seen.contains("webhook-id: msg_1"), "{seen}");
        assert!(seen.contains("content-type: application/json"), "{seen}");
        assert!(seen.ends_with(r#"{"type":"end"}"#), "{seen}");
    }

    #[tokio::test]
    async fn a_10_mb_answer_is_read_only_up_to_the_excerpt() {
        let size = 10 * 1024 * 1024;
        let head = format!("HTTP/1.1 500 Internal Server Error\r\nContent-Length: {size}\r\n\r\n");
        let (port, _told) = receiver(Some(head), size).await;
        let started = Instant::now();
        let answer = HttpSender::default()
            .post(&request("127.0.0.1", port, Duration::from_secs(5)))
            .await
            .unwrap();
        assert_eq!(answer.status, 500);
        assert_eq!(answer.excerpt.len(), MAX_RESPONSE_EXCERPT);
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_redirect_is_never_followed() {
        let (inside, inside_told) = receiver(
            Some("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_owned()),
            0,
        )
        .await;
        let head = format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{inside}/internal\r\nContent-Length: 0\r\n\r\n"
        );
        let (port, _told) = receiver(Some(head), 0).await;
        let answer = HttpSender::default()
            .post(&request("hooks.example.com", port, Duration::from_secs(5)))
            .await
            .unwrap();
        assert_eq!(answer.status, 307, "the redirect is the answer");
        let mut inside_told = inside_told;
        assert!(
            inside_told.try_recv().is_err(),
            "nothing reached 127.0.0.1:{inside}"
        );
    }

    #[tokio::test]
    async fn a_receiver_that_never_answers_runs_into_the_timeout() {
        let (port, _told) = receiver(None, 0).await;
        let started = Instant::now();
        let error = HttpSender::default()
            .post(&request("127.0.0.1", port, Duration::from_millis(300)))
            .await
            .unwrap_err();
        assert!(error.contains("no answer within"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    /// Two messages to one pinning: the receiver accepts a single connection and
    /// answers both on it, so the second can only arrive over the kept client's
    /// connection.
    #[tokio::test]
    async fn messages_to_one_pinning_share_the_kept_connection() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buffer = [0u8; 4096];
            for _ in 0..2 {
                let mut seen = Vec::new();
                while !String::from_utf8_lossy(&seen).contains("\"end\"") {
                    let read = stream.read(&mut buffer).await.unwrap();
                    if read == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buffer[..read]);
                }
                let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                if stream.write_all(answer).await.is_err() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_secs(30)).await;
        });
        let sender = HttpSender::default();
        for _ in 0..2 {
            let answer = sender
                .post(&request("hooks.invalid", port, Duration::from_secs(3)))
                .await
                .unwrap();
            assert_eq!(answer.status, 200);
        }
    }

    #[test]
    fn the_excerpt_is_cut_at_a_character_boundary() {
        let body = "€".repeat(MAX_RESPONSE_EXCERPT);
        let text = excerpt(body.as_bytes());
        assert_eq!(text.len(), MAX_RESPONSE_EXCERPT / 3 * 3);
        assert!(text.chars().all(|c| c == '€'));
    }
}
