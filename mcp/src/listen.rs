//! The accept loop every HTTP listener of ours runs (`serve --http`, `worker`, `webui`, the
//! health endpoint): HTTP/1.1 over TCP or TLS under fixed limits, so that a client holding many
//! connections that never finish cannot keep real clients out.
//!
//! - **A cap on connections** ([`Limits::max_connections`]). A connection over the cap first
//!   evicts an idle one: the oldest still in its TLS handshake, else the oldest that has not yet
//!   sent a whole request (what a flood of idle or half-sent connections is made of), else the one
//!   idle longest between keep-alive requests. A connection inside a request, including a streamed
//!   tool result, is never evicted. With no idle one to evict, the new connection is closed at once.
//! - **Timeouts**: the TLS handshake and every request's headers must arrive within their limits.
//! - **An accept loop that never ends**: a failed `accept()` (EMFILE when the process is out of
//!   file descriptors, ECONNABORTED, …) is logged and retried after a short pause; when it says
//!   the process is out of descriptors, an idle connection is closed to free one.
//! - **Bounded buffers**: a request's headers are read into at most [`Limits::max_header_bytes`].

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use cu_core::{Error, ErrorCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// The limits of one listener.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Open connections at most (each holds a file descriptor and a read buffer).
    pub max_connections: usize,
    /// Time a client has to send each request's headers (and, between keep-alive requests, the
    /// next request).
    pub header_timeout: Duration,
    /// Time a client has to finish the TLS handshake.
    pub handshake_timeout: Duration,
    /// Largest read buffer of one connection (request headers must fit).
    pub max_header_bytes: usize,
}

/// The limits every listener uses: far below the common open-file limit of 1,024.
pub const LIMITS: Limits = Limits {
    max_connections: 256,
    header_timeout: Duration::from_secs(10),
    handshake_timeout: Duration::from_secs(10),
    max_header_bytes: 64 * 1024,
};

/// A pause after a failed `accept()`, so a process out of descriptors does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How a connection is secured.
#[derive(Clone)]
pub enum Transport {
    /// Plain HTTP (loopback binds only; the listener rules decide).
    Plain,
    /// HTTPS through rustls.
    #[cfg(feature = "tls")]
    Tls(tokio_rustls::TlsAcceptor),
}

/// Serves `app` on `listener` until the process ends. Never returns on an `accept()` error.
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    transport: Transport,
    limits: Limits,
) -> Result<(), Error> {
    let table = Arc::new(Table::default());
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                let out_of_descriptors = matches!(
                    e.raw_os_error(),
                    Some(libc::EMFILE)
                        | Some(libc::ENFILE)
                        | Some(libc::ENOBUFS)
                        | Some(libc::ENOMEM)
                );
                tracing::warn!(out_of_descriptors, "accept failed, retrying: {e}");
                if out_of_descriptors {
                    table.evict_idle();
                }
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let first = match transport {
            Transport::Plain => Stage::Secured,
            #[cfg(feature = "tls")]
            Transport::Tls(_) => Stage::Connected,
        };
        let Some(conn) = table.admit(limits.max_connections, first) else {
            tracing::debug!(%peer, "connection refused: every connection is inside a request");
            drop(tcp);
            continue;
        };
        let (app, transport) = (app.clone(), transport.clone());
        tokio::spawn(async move {
            let closed = conn.closed.clone();
            tokio::select! {
                () = serve_connection(tcp, app, transport, limits, conn.clone()) => {}
                () = closed.notified() => tracing::debug!(%peer, "idle connection evicted"),
            }
            conn.table.remove(conn.id);
        });
    }
}

async fn serve_connection(
    tcp: tokio::net::TcpStream,
    app: axum::Router,
    transport: Transport,
    limits: Limits,
    conn: Arc<Conn>,
) {
    let _ = tcp.set_nodelay(true);
    match transport {
        Transport::Plain => http1(TokioIo::new(tcp), app, limits, conn).await,
        #[cfg(feature = "tls")]
        Transport::Tls(acceptor) => {
            match tokio::time::timeout(limits.handshake_timeout, acceptor.accept(tcp)).await {
                Ok(Ok(stream)) => {
                    conn.reached(Stage::Secured);
                    http1(TokioIo::new(stream), app, limits, conn).await
                }
                Ok(Err(e)) => tracing::debug!("TLS handshake failed: {e}"),
                Err(_) => tracing::debug!("TLS handshake timed out"),
            }
        }
    }
}

async fn http1<I>(io: I, app: axum::Router, limits: Limits, conn: Arc<Conn>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let busy = Busy::enter(conn.clone());
            let mut app = app.clone();
            async move {
                let response: Response =
                    tower_service::Service::call(&mut app, request.map(Body::new))
                        .await
                        .unwrap_or_else(|never| match never {});
                // The request lasts until its body (a streamed tool result, say) is done.
                Ok::<_, std::convert::Infallible>(
                    response.map(|body| Body::new(Held { body, _busy: busy })),
                )
            }
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(limits.max_header_bytes)
        .max_buf_size(limits.max_header_bytes);
    if let Err(e) = builder.serve_connection(io, service).with_upgrades().await {
        tracing::debug!("connection ended: {e}");
    }
}

/// The open connections of one listener, oldest first.
#[derive(Default)]
struct Table {
    conns: Mutex<(u64, BTreeMap<u64, Arc<Conn>>)>,
}

struct Conn {
    id: u64,
    table: Arc<Table>,
    /// Requests in progress on this connection (a response body counts until it is done).
    busy: Mutex<usize>,
    /// How far the connection got ([`Stage`] as a number).
    stage: std::sync::atomic::AtomicU8,
    /// When the connection last became idle (ids order connections with equal times).
    idle_since: Mutex<std::time::Instant>,
    closed: Arc<Notify>,
}

impl Table {
    /// Registers a new connection, evicting the longest-idle one when the table is full.
    fn admit(self: &Arc<Self>, max: usize, stage: Stage) -> Option<Arc<Conn>> {
        let Ok(mut guard) = self.conns.lock() else {
            return None;
        };
        let (next, conns) = &mut *guard;
        if conns.len() >= max {
            let victim = longest_idle(conns)?;
            if let Some(conn) = conns.remove(&victim) {
                conn.closed.notify_one();
            }
        }
        *next += 1;
        let conn = Arc::new(Conn {
            id: *next,
            table: self.clone(),
            busy: Mutex::new(0),
            stage: std::sync::atomic::AtomicU8::new(stage as u8),
            idle_since: Mutex::new(std::time::Instant::now()),
            closed: Arc::new(Notify::new()),
        });
        conns.insert(conn.id, conn.clone());
        Some(conn)
    }

    /// Closes the longest-idle connection, if any (to free a descriptor).
    fn evict_idle(&self) {
        let Ok(mut guard) = self.conns.lock() else {
            return;
        };
        if let Some(victim) = longest_idle(&guard.1) {
            if let Some(conn) = guard.1.remove(&victim) {
                conn.closed.notify_one();
            }
        }
    }

    fn remove(&self, id: u64) {
        if let Ok(mut guard) = self.conns.lock() {
            guard.1.remove(&id);
        }
    }
}

fn longest_idle(conns: &BTreeMap<u64, Arc<Conn>>) -> Option<u64> {
    conns
        .values()
        .filter(|c| c.busy.lock().map(|n| *n == 0).unwrap_or(false))
        .min_by_key(|c| {
            let stage = c.stage.load(std::sync::atomic::Ordering::Relaxed);
            let since = c.idle_since.lock().map(|t| *t).ok();
            (stage, since, c.id)
        })
        .map(|c| c.id)
}

/// How far a connection got; eviction takes the lowest stage first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
enum Stage {
    /// Accepted; a TLS handshake not finished (TLS listeners only).
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Connected = 0,
    /// Ready for HTTP (plain, or the handshake done): no whole request yet.
    Secured = 1,
    /// A whole request has arrived.
    Served = 2,
}

impl Conn {
    fn reached(&self, stage: Stage) {
        self.stage
            .fetch_max(stage as u8, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Marks a connection busy for as long as it lives.
struct Busy(Arc<Conn>);

impl Busy {
    fn enter(conn: Arc<Conn>) -> Busy {
        conn.reached(Stage::Served);
        if let Ok(mut n) = conn.busy.lock() {
            *n += 1;
        }
        Busy(conn)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Ok(mut n) = self.0.busy.lock() {
            *n = n.saturating_sub(1);
            if *n == 0 {
                if let Ok(mut since) = self.0.idle_since.lock() {
                    *since = std::time::Instant::now();
                }
            }
        }
    }
}

/// A response body that keeps its connection busy until it is done or dropped.
struct Held {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Held {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The error a listener gives when it cannot bind.
pub fn bind_error(addr: std::net::SocketAddr, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("cannot listen on {addr}: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_evicts_the_longest_idle_connection_never_a_busy_one() {
        let table = Arc::new(Table::default());
        let first = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted"));
        let second = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted"));
        let busy = Busy::enter(first.clone());
        let third = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted by evicting"));
        let ids: Vec<u64> = table
            .conns
            .lock()
            .map(|g| g.1.keys().copied().collect())
            .unwrap_or_default();
        assert_eq!(
            ids,
            vec![first.id, third.id],
            "the idle second went, the busy first stayed"
        );
        let _also_busy = Busy::enter(third.clone());
        assert!(
            table.admit(2, Stage::Secured).is_none(),
            "every connection busy: the new one is refused"
        );
        drop(busy);
        assert!(
            table.admit(2, Stage::Secured).is_some(),
            "the first is idle again and can be evicted"
        );
        drop(second);
    }

    #[test]
    fn connections_in_their_handshake_go_before_ones_that_finished_it() {
        let table = Arc::new(Table::default());
        let secured = table
            .admit(2, Stage::Connected)
            .unwrap_or_else(|| panic!("admitted"));
        secured.reached(Stage::Secured);
        let handshaking = table
            .admit(2, Stage::Connected)
            .unwrap_or_else(|| panic!("admitted"));
        let _next = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted by evicting"));
        let ids: Vec<u64> = table
            .conns
            .lock()
            .map(|g| g.1.keys().copied().collect())
            .unwrap_or_default();
        assert!(
            ids.contains(&secured.id) && !ids.contains(&handshaking.id),
            "{ids:?}"
        );
    }

    #[test]
    fn connections_that_never_sent_a_request_go_before_idle_keep_alive_ones() {
        let table = Arc::new(Table::default());
        let client = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted"));
        drop(Busy::enter(client.clone()));
        let _flood = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted"));
        let _next = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted by evicting"));
        let ids: Vec<u64> = table
            .conns
            .lock()
            .map(|g| g.1.keys().copied().collect())
            .unwrap_or_default();
        assert!(
            ids.contains(&client.id),
            "the keep-alive client stayed: {ids:?}"
        );
    }
}
