//! The Desktop page: a person picks a machine and a window, sees it (polled JPEGs stamped with
//! the geometry they were taken with), operates it (pointer, wheel, keys, text), and approves or
//! denies what the safety gate held back for them.
//!
//! Served from the binary (assets embedded, no CDN) under the shared listener rules
//! (`cu_mcp::http`: a token, loopback unless TLS). A browser opens `/?token=…` once and gets an
//! HttpOnly, SameSite=Strict cookie that holds a random secret of this listener (never the
//! token), under a name of its own, so two listeners on one host never share a cookie. Browsers
//! send a cookie to every port of its host, so the cookie alone changes nothing: every request
//! that does (input, activation, a decision) also carries the page's own secret, which the page
//! was served in its HTML and keeps in memory, and this listener's `Origin`. The page is never
//! framed (`frame-ancestors 'none'`). The page's
//! title marks its window: the tools refuse to operate a window that shows it
//! ([`cu_tools::DESKTOP_PAGE_TITLE`]), so a model cannot approve its own action by driving
//! a browser. `Host` is checked against DNS rebinding
//! and a cross-site `Origin` is refused. Input goes through the internal desktop call — never an
//! MCP tool — and is refused when the window moved since the image it was aimed at.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Request};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use cu_core::{Error, ErrorCode};
use cu_mcp::http::{allowed_hosts, HttpOptions};
use cu_mcp::remote::Remote;
use cu_mcp::token::constant_time_eq;
use cu_tools::{DesktopAnswer, DesktopRequest, Service};
use serde_json::{json, Value};

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/app.css");

/// A listener's browser session: the cookie's name and the secret it holds, and the page's own
/// secret, all random. Browsers send a cookie to every port of its host, so a page served on
/// another local port receives the cookie and could replay it: a request that changes anything
/// also needs the page's secret, which the page holds in its own memory (from the HTML it was
/// served), never in a cookie, and an `Origin` of this listener.
#[derive(Clone)]
struct Session {
    cookie: String,
    secret: String,
    page: String,
}

/// The header the page sends its own secret in.
const PAGE_HEADER: &str = "x-cu-page";

impl Session {
    fn new() -> Session {
        Session {
            cookie: format!("cu_{}", &random_hex()[..12]),
            secret: random_hex(),
            page: random_hex(),
        }
    }
}

/// 256 bits from the OS's randomness (std's `RandomState` keys are drawn from it).
fn random_hex() -> String {
    use std::hash::{BuildHasher, Hasher};
    (0..4)
        .map(|i| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(i);
            format!("{:016x}", h.finish())
        })
        .collect()
}

/// What the page serves from.
#[derive(Clone)]
pub struct WebUi {
    service: Arc<Service>,
    remote: Option<Arc<dyn Remote>>,
}

impl WebUi {
    /// The page over this machine's `service`, and `remote` machines when configured.
    pub fn new(service: Arc<Service>, remote: Option<Arc<dyn Remote>>) -> WebUi {
        WebUi { service, remote }
    }

    /// Every machine's pending approvals, each marked with its machine; a machine that does not
    /// answer is left out (its windows say why).
    async fn all_approvals(&self) -> Result<Value, Error> {
        let mut all: Vec<Value> = Vec::new();
        let mut machines = vec!["local".to_owned()];
        machines.extend(
            self.remote
                .as_ref()
                .map(|r| r.machines())
                .unwrap_or_default(),
        );
        for machine in machines {
            let Ok((value, _)) = self.desktop(&machine, json!({ "op": "approvals" })).await else {
                continue;
            };
            for mut a in value["approvals"].as_array().cloned().unwrap_or_default() {
                a["machine"] = json!(machine);
                all.push(a);
            }
        }
        Ok(json!({ "approvals": all }))
    }

    async fn desktop(
        &self,
        machine: &str,
        request: Value,
    ) -> Result<(Value, Option<Vec<u8>>), Error> {
        if machine == "local" {
            let parsed: DesktopRequest = serde_json::from_value(request)
                .map_err(|e| Error::new(ErrorCode::InvalidArgument, format!("bad request: {e}")))?;
            let answer = self.service.desktop(&parsed).await?;
            let jpeg = match &answer {
                DesktopAnswer::Capture { jpeg, .. } | DesktopAnswer::Crop { jpeg } => {
                    Some(jpeg.clone())
                }
                _ => None,
            };
            let value = serde_json::to_value(&answer)
                .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
            return Ok((value, jpeg));
        }
        let remote = self.remote.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidArgument,
                format!("unknown machine {machine:?}"),
            )
        })?;
        cu_mcp::remote::call_desktop(remote.as_ref(), machine, request).await
    }
}

/// Serves the page until the process ends.
pub async fn serve(webui: WebUi, options: HttpOptions) -> Result<(), Error> {
    if options.token.is_none() {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "the Desktop page needs a token: set MCP_CU_HTTP_TOKEN or pass --token-file",
        )
        .with_suggestion("Tokens never go on the command line."));
    }
    let app = router(webui, &options);
    cu_mcp::http::serve_router(app, &options, "the Desktop page").await
}

/// The page's routes behind the host, origin and token checks.
pub fn router(webui: WebUi, options: &HttpOptions) -> axum::Router {
    let token: Arc<str> = Arc::from(options.token.clone().unwrap_or_default());
    let hosts = Arc::new(allowed_hosts(options));
    let secure = options.tls.is_some();
    let session = Arc::new(Session::new());
    let ui = Arc::new(webui);
    let with = |f: fn(Arc<WebUi>, HeaderMap, Bytes, Vec<String>) -> HandlerFuture| {
        let ui = ui.clone();
        move |path: Option<Path<Vec<String>>>, headers: HeaderMap, body: Bytes| {
            let ui = ui.clone();
            async move { f(ui, headers, body, path.map(|p| p.0).unwrap_or_default()).await }
        }
    };
    let index = INDEX.replace(
        "<meta name=\"cu-page\" content=\"\">",
        &format!("<meta name=\"cu-page\" content=\"{}\">", session.page),
    );
    axum::Router::new()
        .route(
            "/",
            get(move || {
                let index = index.clone();
                async move { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], index) }
            }),
        )
        .route(
            "/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    SCRIPT,
                )
            }),
        )
        .route(
            "/app.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE) }),
        )
        .route("/api/machines", get(with(machines)))
        .route("/api/windows/{machine}", get(with(windows)))
        .route("/api/capture/{machine}/{window}", get(with(capture)))
        .route("/api/input", post(with(input)))
        .route("/api/activate", post(with(activate)))
        .route("/api/approvals", get(with(approvals)))
        .route("/api/approvals/{machine}/{id}/crop", get(with(crop)))
        .route("/api/approvals/{machine}/{id}", post(with(decide)))
        .route("/api/audit", get(with(audit)))
        .layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let (token, hosts, session) = (token.clone(), hosts.clone(), session.clone());
                async move {
                    let mut response = guard(request, next, &token, &session, &hosts, secure).await;
                    // Never framed: a page that frames it could lead a person's clicks.
                    let headers = response.headers_mut();
                    headers.insert(
                        header::CONTENT_SECURITY_POLICY,
                        header::HeaderValue::from_static("frame-ancestors 'none'"),
                    );
                    headers.insert(
                        header::X_FRAME_OPTIONS,
                        header::HeaderValue::from_static("DENY"),
                    );
                    response
                }
            },
        ))
}

type HandlerFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>;

/// Host and Origin checks, then the token (bearer) or the session cookie; `/?token=` sets the
/// cookie.
async fn guard(
    request: Request,
    next: Next,
    token: &str,
    session: &Session,
    hosts: &[String],
    secure: bool,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !hosts.iter().any(|h| h == host) {
        return (StatusCode::FORBIDDEN, "unexpected Host").into_response();
    }
    if request.method() != Method::GET {
        let origin = request
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok());
        if origin.is_some_and(|o| !o.ends_with(&format!("://{host}"))) {
            return (StatusCode::FORBIDDEN, "cross-site request refused").into_response();
        }
    }
    if let Some(given) = request
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("token=")))
    {
        if request.uri().path() == "/" && constant_time_eq(given.as_bytes(), token.as_bytes()) {
            let cookie = format!(
                "{}={}; HttpOnly; SameSite=Strict; Path=/{}",
                session.cookie,
                session.secret,
                if secure { "; Secure" } else { "" }
            );
            return (
                StatusCode::SEE_OTHER,
                [
                    (header::SET_COOKIE, cookie),
                    (header::LOCATION, "/".to_owned()),
                ],
            )
                .into_response();
        }
    }
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let cookie = request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|kv| {
            kv.trim()
                .strip_prefix(&format!("{}=", session.cookie))
                .map(str::to_owned)
        });
    let by_token = bearer.is_some_and(|b| constant_time_eq(b.as_bytes(), token.as_bytes()));
    let by_cookie =
        cookie.is_some_and(|c| constant_time_eq(c.as_bytes(), session.secret.as_bytes()));
    if by_cookie && !by_token && request.method() != Method::GET {
        // The cookie alone does not change anything: the page's own secret and this
        // listener's origin come with every such request.
        let page = request
            .headers()
            .get(PAGE_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| constant_time_eq(p.as_bytes(), session.page.as_bytes()));
        let scheme = if secure { "https" } else { "http" };
        let origin = request
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|o| o == format!("{scheme}://{host}"));
        if !page || !origin {
            return (
                StatusCode::FORBIDDEN,
                "a request that changes something needs the page's own secret and this page's Origin",
            )
                .into_response();
        }
    }
    if !(by_token || by_cookie) {
        if request.uri().path().starts_with("/api/") {
            return cu_mcp::http::unauthorized();
        }
        let page = "<!doctype html><meta charset=utf-8><title>mcp-computer-use</title><p>Open this page with the link <code>/?token=…</code> (the token of <code>mcp-computer-use webui</code>).";
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            page,
        )
            .into_response();
    }
    next.run(request).await
}

fn json_ok(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn json_error(e: &Error) -> Response {
    let status = match e.code {
        ErrorCode::WindowMoved | ErrorCode::StateAlreadyUsed => StatusCode::CONFLICT,
        ErrorCode::WindowNotFound | ErrorCode::ElementNotFound => StatusCode::NOT_FOUND,
        ErrorCode::InvalidArgument | ErrorCode::OutOfWindow | ErrorCode::InvalidTarget => {
            StatusCode::BAD_REQUEST
        }
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        _ => StatusCode::BAD_GATEWAY,
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        e.to_json().to_string(),
    )
        .into_response()
}

fn respond(result: Result<Value, Error>) -> Response {
    match result {
        Ok(v) => json_ok(v),
        Err(e) => json_error(&e),
    }
}

fn machines(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, _: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let mut all = vec!["local".to_owned()];
        all.extend(ui.remote.as_ref().map(|r| r.machines()).unwrap_or_default());
        json_ok(json!({ "machines": all }))
    })
}

fn windows(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, path: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let machine = path.first().cloned().unwrap_or_default();
        respond(
            ui.desktop(&machine, json!({ "op": "windows" }))
                .await
                .map(|(v, _)| v),
        )
    })
}

fn capture(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, path: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let (machine, window) = (
            path.first().cloned().unwrap_or_default(),
            path.get(1).cloned().unwrap_or_default(),
        );
        match ui
            .desktop(&machine, json!({ "op": "capture", "window_id": window }))
            .await
        {
            Ok((value, Some(jpeg))) => (
                [
                    (header::CONTENT_TYPE, "image/jpeg".to_owned()),
                    (header::CACHE_CONTROL, "no-store".to_owned()),
                    (
                        header::HeaderName::from_static("x-geometry"),
                        value["geometry"].to_string(),
                    ),
                    (
                        header::HeaderName::from_static("x-image"),
                        value["image"].to_string(),
                    ),
                ],
                jpeg,
            )
                .into_response(),
            Ok((_, None)) => json_error(&Error::new(
                ErrorCode::ImageCaptureFailed,
                "no image came back",
            )),
            Err(e) => json_error(&e),
        }
    })
}

fn input(ui: Arc<WebUi>, _: HeaderMap, body: Bytes, _: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let parsed: Result<Value, Error> = serde_json::from_slice(&body)
            .map_err(|e| Error::new(ErrorCode::InvalidArgument, format!("bad JSON: {e}")));
        let run = async {
            let mut request = parsed?;
            let machine = request
                .as_object_mut()
                .and_then(|m| m.remove("machine"))
                .and_then(|m| m.as_str().map(str::to_owned))
                .unwrap_or_else(|| "local".into());
            if let Some(map) = request.as_object_mut() {
                map.insert("op".into(), json!("input"));
            }
            ui.desktop(&machine, request).await.map(|(v, _)| v)
        };
        respond(run.await)
    })
}

fn activate(ui: Arc<WebUi>, _: HeaderMap, body: Bytes, _: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let machine = request["machine"].as_str().unwrap_or("local").to_owned();
        let window_id = request["window_id"].as_str().unwrap_or_default().to_owned();
        let call = json!({ "op": "activate", "window_id": window_id });
        respond(ui.desktop(&machine, call).await.map(|(v, _)| v))
    })
}

fn approvals(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, _: Vec<String>) -> HandlerFuture {
    Box::pin(async move { respond(ui.all_approvals().await) })
}

fn crop(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, path: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let (machine, id) = (
            path.first().cloned().unwrap_or_default(),
            path.get(1).cloned().unwrap_or_default(),
        );
        match ui
            .desktop(&machine, json!({ "op": "crop", "id": id }))
            .await
        {
            Ok((_, Some(jpeg))) => ([(header::CONTENT_TYPE, "image/jpeg")], jpeg).into_response(),
            Ok((_, None)) => json_error(&Error::new(ErrorCode::ElementNotFound, "no crop")),
            Err(e) => json_error(&e),
        }
    })
}

fn decide(ui: Arc<WebUi>, headers: HeaderMap, body: Bytes, path: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let (machine, id) = (
            path.first().cloned().unwrap_or_default(),
            path.get(1).cloned().unwrap_or_default(),
        );
        let approve = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v["approve"].as_bool());
        let Some(approve) = approve else {
            return json_error(&Error::new(
                ErrorCode::InvalidArgument,
                "send {\"approve\": true|false}",
            ));
        };
        let agent = headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|ua| ua.chars().take(60).collect::<String>())
            .unwrap_or_default();
        let by = format!("Desktop page ({agent})");
        let request = json!({ "op": "decide", "id": id, "approve": approve, "by": by });
        respond(ui.desktop(&machine, request).await.map(|(v, _)| v))
    })
}

fn audit(ui: Arc<WebUi>, _: HeaderMap, _: Bytes, _: Vec<String>) -> HandlerFuture {
    Box::pin(async move {
        let path = ui.service.config().sessions_dir.join("actions.log");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let recent: Vec<Value> = lines[lines.len().saturating_sub(30)..]
            .iter()
            .rev()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        json_ok(json!({ "records": recent }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_random_and_the_page_carries_the_title_the_tools_refuse() {
        let (a, b) = (Session::new(), Session::new());
        assert_ne!(a.secret, b.secret);
        assert_ne!(a.cookie, b.cookie);
        assert_eq!(a.secret.len(), 64);
        assert!(INDEX.contains(&format!("<title>{}</title>", cu_tools::DESKTOP_PAGE_TITLE)));
    }
}
