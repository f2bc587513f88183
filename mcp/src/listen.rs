//! The accept loop every HTTP listener of ours runs (`serve --http`, `worker`, `webui`, the
//! health endpoint): HTTP/1.1 over TCP or TLS under fixed limits, so that a client holding many
//! connections that never finish cannot keep real clients out.
//!
//! - **A deep accept queue** ([`bind`]): a burst of connects waits to be accepted rather than
//!   being dropped by the kernel and coming back in waves.
//! - **A cap on connections** ([`Limits::max_connections`]). A connection over the cap first
//!   evicts an idle one, lowest rank first, oldest first within a rank: not even a whole TLS
//!   ClientHello record yet; mid-handshake; no whole request yet (what a flood of idle or
//!   half-sent connections is made of); whole request headers waiting since it was accepted;
//!   idle between keep-alive requests. A connection's first bytes are peeked when it is accepted,
//!   so a real client queued behind a flood (its request or ClientHello already in its socket)
//!   ranks above the flood. A connection inside a request, including a streamed tool result, is
//!   never evicted. With no idle one to evict, the new connection is closed at once.
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

/// The accept queue asked for (the kernel caps it at `net.core.somaxconn`, 4,096 on current
/// Linux). A burst of connects beyond the queue is dropped by the kernel and retried by the
/// clients a second or three later, in waves that would each evict as many idle connections.
const BACKLOG: u32 = 4096;

/// Binds a listening socket with a deep accept queue (4,096 connections, as far as the kernel
/// allows).
pub fn bind(addr: std::net::SocketAddr) -> Result<TcpListener, Error> {
    let bound = || {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        // As `TcpListener::bind` does: a restarted listener may take its port back at once.
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        socket.bind(addr)?;
        socket.listen(BACKLOG)
    };
    bound().map_err(|e: std::io::Error| bind_error(addr, e))
}

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
        let (tcp, first) = match first_stage(tcp, &transport) {
            Ok(ready) => ready,
            Err(e) => {
                tracing::debug!(%peer, "accepted connection unusable: {e}");
                continue;
            }
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
            let tcp = HelloWatch::new(tcp, conn.clone());
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

/// How far a newly accepted connection got, from what already waits in its socket (a
/// connection taken from a deep accept queue has usually sent its first bytes): a whole request's
/// headers, or a whole ClientHello record, rank it above the flood it queued behind.
fn first_stage(
    tcp: tokio::net::TcpStream,
    transport: &Transport,
) -> std::io::Result<(tokio::net::TcpStream, Stage)> {
    // A plain, non-blocking peek of the socket as it is now (the reactor has not been asked
    // about a socket this new yet, so an async peek would only wait).
    let std = tcp.into_std()?;
    let mut buf = [0u8; 2048];
    let peeked = std.peek(&mut buf).unwrap_or(0);
    let stage = stage_of(transport, buf.get(..peeked).unwrap_or_default());
    Ok((tokio::net::TcpStream::from_std(std)?, stage))
}

/// The stage that `first` bytes, read before anything was served, prove.
fn stage_of(transport: &Transport, first: &[u8]) -> Stage {
    match transport {
        Transport::Plain if first.windows(4).any(|w| w == b"\r\n\r\n") => Stage::Requested,
        Transport::Plain => Stage::Secured,
        #[cfg(feature = "tls")]
        Transport::Tls(_) => match first_record_len(first.get(..5).unwrap_or(first)) {
            Some(whole) if first.len() >= whole => Stage::Hello,
            _ => Stage::Connected,
        },
    }
}

/// How far a connection got; eviction takes the lowest stage first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
enum Stage {
    /// Accepted; not even a whole first TLS record (the ClientHello) yet (TLS listeners only).
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Connected = 0,
    /// The ClientHello record arrived; the TLS handshake is under way.
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Hello = 1,
    /// Ready for HTTP (plain, or the handshake done): no whole request yet.
    Secured = 2,
    /// A whole request's headers were waiting when it was accepted (plain HTTP).
    Requested = 3,
    /// A request has been served (idle now only between keep-alive requests).
    Served = 4,
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

/// The TCP stream under a TLS handshake, marking its connection [`Stage::Hello`] once the whole
/// first TLS record (5-byte header, then the length it announces) has been read.
#[cfg(feature = "tls")]
struct HelloWatch {
    tcp: tokio::net::TcpStream,
    conn: Arc<Conn>,
    /// The first record's header as far as read, and the bytes read so far.
    header: [u8; 5],
    read: usize,
    done: bool,
}

#[cfg(feature = "tls")]
impl HelloWatch {
    fn new(tcp: tokio::net::TcpStream, conn: Arc<Conn>) -> HelloWatch {
        HelloWatch {
            tcp,
            conn,
            header: [0; 5],
            read: 0,
            done: false,
        }
    }

    fn saw(&mut self, bytes: &[u8]) {
        if self.done {
            return;
        }
        for &b in bytes {
            if let Some(slot) = self.header.get_mut(self.read) {
                *slot = b;
            }
            self.read += 1;
        }
        if let Some(need) = first_record_len(&self.header[..self.read.min(5)]) {
            if self.read >= need {
                self.done = true;
                self.conn.reached(Stage::Hello);
            }
        }
    }
}

/// The length of the first TLS record (header included) once its 5-byte header is known.
#[cfg(feature = "tls")]
fn first_record_len(header: &[u8]) -> Option<usize> {
    match header {
        [_, _, _, hi, lo] => Some(5 + usize::from(u16::from_be_bytes([*hi, *lo]))),
        _ => None,
    }
}

#[cfg(feature = "tls")]
impl tokio::io::AsyncRead for HelloWatch {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), false) = (&polled, self.done) {
            let fresh = buf.filled()[before..].to_vec();
            self.saw(&fresh);
        }
        polled
    }
}

#[cfg(feature = "tls")]
impl tokio::io::AsyncWrite for HelloWatch {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
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
fn bind_error(addr: std::net::SocketAddr, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("cannot listen on {addr}: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn regression_a_flood_beyond_the_accept_queue_came_back_in_waves() {
        // CI saw real TLS clients cut off a second or three into a flood of 2,000 connects: the
        // kernel had dropped the connects beyond tokio's accept queue of 1,024, and their
        // retries arrived in waves that evicted the real clients accepted just before. Every
        // connect of a burst this size must complete at once, before anything is accepted
        // (as far as the kernel's own cap allows: `net.core.somaxconn`, 4,096 since Linux 5.4).
        let cap = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(BACKLOG as usize);
        // Each connect is a descriptor of this process too: stay under its open-file limit
        // (a machine whose soft limit is the common 1,024 would fail on EMFILE, not on the queue).
        let burst = cap.min(1500).min(open_file_limit().saturating_sub(64));
        let listener = match bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0))) {
            Ok(listener) => listener,
            Err(e) => panic!("{e}"),
        };
        let addr = match listener.local_addr() {
            Ok(addr) => addr,
            Err(e) => panic!("{e}"),
        };
        // One after another, blocking: on loopback a connect the queue holds completes inside
        // the call, one it dropped waits for the SYN's retransmission (1 s). Timing single
        // connects, not a swarm of tasks, keeps a busy machine from failing the test.
        let mut open = Vec::new();
        for _ in 0..burst {
            match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(900)) {
                Ok(stream) => open.push(stream),
                Err(e) => panic!("connect {} of {burst}: {e}", open.len() + 1),
            }
        }
        assert_eq!(open.len(), burst, "connects the accept queue held");
    }

    /// This process's soft open-file limit, raised to the hard one first where allowed.
    #[cfg(not(unix))]
    fn open_file_limit() -> usize {
        usize::MAX
    }

    /// This process's soft open-file limit, raised to the hard one first where allowed.
    #[cfg(unix)]
    fn open_file_limit() -> usize {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid, writable `rlimit` for the duration of the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: `raised` is a valid `rlimit`; raising the soft limit to the hard one
            // needs no privilege.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    }

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
    fn regression_a_real_request_queued_behind_a_flood_was_evicted_before_it_was_read() {
        // CI saw real plain-HTTP clients cut off while the accept loop drained the flood's
        // queue: a connection whose whole request headers wait in its socket ranks above them.
        assert_eq!(
            stage_of(
                &Transport::Plain,
                b"POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n{}"
            ),
            Stage::Requested
        );
        assert_eq!(
            stage_of(&Transport::Plain, b"POST /mcp HTTP/1.1\r\nHost: a\r\n"),
            Stage::Secured
        );
        let table = Arc::new(Table::default());
        let real = table
            .admit(2, Stage::Requested)
            .unwrap_or_else(|| panic!("admitted"));
        let flood = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted"));
        let _next = table
            .admit(2, Stage::Secured)
            .unwrap_or_else(|| panic!("admitted by evicting"));
        let ids = ids(&table);
        assert!(
            ids.contains(&real.id) && !ids.contains(&flood.id),
            "{ids:?}"
        );
    }

    #[test]
    fn regression_a_flood_of_half_sent_hellos_evicted_real_handshakes() {
        // CI saw 37 of 50 real TLS clients cut off: each was the oldest handshake when the
        // flood's backlog was accepted. A connection whose ClientHello arrived stays.
        let table = Arc::new(Table::default());
        let real = table
            .admit(2, Stage::Connected)
            .unwrap_or_else(|| panic!("admitted"));
        real.reached(Stage::Hello);
        let flood = table
            .admit(2, Stage::Connected)
            .unwrap_or_else(|| panic!("admitted"));
        let _next = table
            .admit(2, Stage::Connected)
            .unwrap_or_else(|| panic!("admitted by evicting"));
        let ids = ids(&table);
        assert!(
            ids.contains(&real.id) && !ids.contains(&flood.id),
            "{ids:?}"
        );
    }

    #[cfg(feature = "tls")]
    #[test]
    fn the_first_record_is_whole_at_its_announced_length() {
        assert_eq!(first_record_len(&[0x16, 3, 1]), None);
        assert_eq!(first_record_len(&[0x16, 3, 1, 2, 0]), Some(5 + 512));
        let tls = Transport::Tls(tokio_rustls::TlsAcceptor::from(Arc::new(
            match tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
                tokio_rustls::rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            {
                Ok(b) => b.with_no_client_auth().with_cert_resolver(Arc::new(NoCert)),
                Err(e) => panic!("{e}"),
            },
        )));
        let mut hello = vec![0x16, 3, 1, 0, 4];
        assert_eq!(stage_of(&tls, &hello), Stage::Connected, "header only");
        hello.extend([1, 0, 0, 0]);
        assert_eq!(stage_of(&tls, &hello), Stage::Hello, "the whole record");
    }

    #[cfg(feature = "tls")]
    #[derive(Debug)]
    struct NoCert;

    #[cfg(feature = "tls")]
    impl tokio_rustls::rustls::server::ResolvesServerCert for NoCert {
        fn resolve(
            &self,
            _: tokio_rustls::rustls::server::ClientHello<'_>,
        ) -> Option<Arc<tokio_rustls::rustls::sign::CertifiedKey>> {
            None
        }
    }

    fn ids(table: &Table) -> Vec<u64> {
        table
            .conns
            .lock()
            .map(|g| g.1.keys().copied().collect())
            .unwrap_or_default()
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
