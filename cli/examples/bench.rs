//! Benchmark helper: times our snapshot of each window (warm, one process) and XTEST click and
//! capture latency. `scripts/bench/snapshot-bench.sh` runs it beside pyatspi, xdotool and xwd.
//!
//! Usage: `bench snapshot REPS WINDOW_ID...` | `bench input REPS WINDOW_ID X Y` |
//! `bench extract REPS SOURCE...` (SOURCE: a fixture file, `synthetic:NODES`, or a live window id:
//! extraction time, plus the read for a live window, and the window's full text in tokens).
//! Prints one JSON object per line on stdout.

use std::time::Instant;

use cu_core::model::backend::{InputEvent, MouseButton};
use cu_core::model::element::SnapshotOptions;
use cu_core::model::geometry::Point;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// A snapshot from a fixture file, a synthetic window of N nodes (the Claude fixture repeated),
/// or a live window (with its median read time over `reps`).
async fn load_source(
    backend: &dyn cu_core::model::backend::Backend,
    source: &str,
    reps: usize,
) -> anyhow::Result<(cu_core::model::element::Snapshot, Option<f64>)> {
    if let Some(n) = source.strip_prefix("synthetic:") {
        let n: usize = n.parse()?;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/extract/claude_code/finished.outline");
        let text = std::fs::read_to_string(root)?;
        let (head, body) = text
            .split_once("\n---\n")
            .ok_or_else(|| anyhow::anyhow!("no ---"))?;
        let mut lines: Vec<&str> = body.lines().filter(|l| !l.trim().is_empty()).collect();
        let window = lines.remove(0);
        let mut out = format!("{head}\n---\n{window}\n");
        let mut count = 1;
        while count < n {
            for line in &lines {
                if count >= n {
                    break;
                }
                out.push_str(line);
                out.push('\n');
                count += 1;
            }
        }
        let snapshot = cu_core::policy::extract::outline_fixture::parse(&out)
            .map_err(|e| anyhow::anyhow!(e))?;
        return Ok((snapshot, None));
    }
    let path = std::path::Path::new(source);
    if path.is_file() {
        let text = std::fs::read_to_string(path)?;
        let snapshot = if source.ends_with(".outline") {
            cu_core::policy::extract::outline_fixture::parse(&text)
                .map_err(|e| anyhow::anyhow!(e))?
        } else {
            serde_json::from_str(&text)?
        };
        return Ok((snapshot, None));
    }
    let id = source.into();
    let options = SnapshotOptions::default();
    let snapshot = backend.snapshot(&id, &options).await?;
    let mut times = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        backend.snapshot(&id, &options).await?;
        times.push(ms(t));
    }
    Ok((snapshot, Some((median(times) * 10.0).round() / 10.0)))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("MCP_CU_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let backend = cu_backends::platform_backend();
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    match args.first().map(String::as_str) {
        Some("snapshot") => {
            backend.list_windows().await?;
            for id in &args[2..] {
                let id = id.as_str().into();
                let options = SnapshotOptions::default();
                let warm = backend.snapshot(&id, &options).await?;
                let mut times = Vec::new();
                for _ in 0..reps {
                    let t = Instant::now();
                    backend.snapshot(&id, &options).await?;
                    times.push(ms(t));
                }
                let line = serde_json::json!({
                    "window": id, "title": warm.window.title, "nodes": warm.nodes.len(),
                    "truncated": warm.truncated, "median_ms": (median(times) * 10.0).round() / 10.0,
                });
                anyhow::ensure!(
                    warm.truncated.is_none(),
                    "snapshot of {} was cut: {line}",
                    warm.window.title
                );
                #[allow(clippy::print_stdout)]
                {
                    println!("{line}");
                }
            }
        }
        Some("input") => {
            let id = args
                .get(2)
                .map(|s| s.as_str().into())
                .ok_or_else(|| anyhow::anyhow!("window id"))?;
            let x: i32 = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(5);
            let y: i32 = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(5);
            backend.list_windows().await?;
            backend.activate(&id).await?;
            let click = InputEvent::Click {
                at: Point::new(x, y),
                button: MouseButton::Left,
                count: 1,
            };
            let (mut clicks, mut captures) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                let t = Instant::now();
                backend.input(&id, &click).await?;
                clicks.push(ms(t));
                let t = Instant::now();
                let image = backend.capture(&id).await?;
                captures.push(ms(t));
                anyhow::ensure!(image.width > 0);
            }
            #[allow(clippy::print_stdout)]
            {
                println!(
                    "{}",
                    serde_json::json!({ "click_median_ms": (median(clicks) * 100.0).round() / 100.0,
                                        "capture_median_ms": (median(captures) * 100.0).round() / 100.0 })
                );
            }
        }
        Some("outline") => {
            // Default gui_state outline size per window; with #TITLE, only that document's subtree.
            let bpe = tiktoken_rs::o200k_base()?;
            backend.list_windows().await?;
            for spec in &args[1..] {
                let (id, document) = match spec.split_once('#') {
                    Some((id, doc)) => (id, Some(doc)),
                    None => (spec.as_str(), None),
                };
                let id = id.into();
                let snap = match document {
                    None => backend.snapshot(&id, &SnapshotOptions::default()).await?,
                    Some(title) => {
                        // The showing page, as gui_state(page=true) gives it, once the window
                        // shows the page of that title (a page still loading is polled).
                        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                        loop {
                            let full = backend.snapshot(&id, &SnapshotOptions::default()).await?;
                            match full.page().filter(|_| full.window.title.starts_with(title)) {
                                Some(page) => break page,
                                None if std::time::Instant::now() > deadline => anyhow::bail!("no page {title:?} shown within 30 s"),
                                None => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
                            }
                        }
                    }
                };
                let outline = cu_core::model::outline::render(&snap, &cu_core::model::outline::OutlineOptions::default());
                let tokens = bpe.encode_ordinary(&outline.text).len();
                let per = (tokens as f64 / outline.ids.len().max(1) as f64 * 10.0).round() / 10.0;
                #[allow(clippy::print_stdout)]
                {
                    println!(
                        "{}",
                        serde_json::json!({ "window": snap.window.title, "document": document, "elements": outline.ids.len(),
                            "tokens": tokens, "bytes": outline.text.len(), "tokens_per_element": per })
                    );
                }
            }
        }
        Some("extract") => {
            let bpe = tiktoken_rs::o200k_base()?;
            backend.list_windows().await?;
            for source in &args[2..] {
                let (snapshot, read_ms) = load_source(backend.as_ref(), source, reps).await?;
                let mut times = Vec::new();
                let mut extracted = cu_core::policy::extract::extract(&snapshot, true);
                for _ in 0..reps.max(20) {
                    let t = Instant::now();
                    extracted = cu_core::policy::extract::extract(&snapshot, true);
                    times.push(ms(t));
                }
                let full_text = cu_core::policy::extract::reading_order(&snapshot, 0).join("\n");
                #[allow(clippy::print_stdout)]
                {
                    println!(
                        "{}",
                        serde_json::json!({ "source": source, "profile": extracted.extractor, "status": extracted.status,
                            "nodes": snapshot.nodes.len(), "extract_median_ms": (median(times) * 1000.0).round() / 1000.0,
                            "read_median_ms": read_ms, "full_text_tokens": bpe.encode_ordinary(&full_text).len() })
                    );
                }
            }
        }
        Some("tokens") => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
            let tokens = tiktoken_rs::o200k_base()?.encode_ordinary(&text).len();
            #[allow(clippy::print_stdout)]
            {
                println!("{}", serde_json::json!({ "tokens": tokens, "bytes": text.len() }));
            }
        }
        Some("loop") => {
            // observe -> act -> observe on the calculator: press the button named "1".
            let id: cu_core::model::window::WindowId =
                args.get(2).map(|s| s.as_str().into()).ok_or_else(|| anyhow::anyhow!("window id"))?;
            let dir = tempfile::tempdir()?;
            let mut config = cu_core::config::Config::defaults(&|_| None);
            config.sessions_dir = dir.path().to_owned();
            let service = cu_tools::Service::new(backend.clone(), config);
            let (mut observe, mut act, mut total) = (Vec::new(), Vec::new(), Vec::new());
            let (mut action_answer, mut state_answer) = (String::new(), String::new());
            for _ in 0..reps {
                let t0 = Instant::now();
                let request = cu_tools::StateRequest { window_id: id.clone(), ..Default::default() };
                let state = service.gui_state(&request).await?;
                observe.push(ms(t0));
                let one = state
                    .outline
                    .lines()
                    .find(|l| l.contains(" button \"1\""))
                    .and_then(|l| l.split_whitespace().next())
                    .ok_or_else(|| anyhow::anyhow!("no button 1"))?
                    .to_owned();
                let spec: cu_tools::Step =
                    serde_json::from_value(serde_json::json!({ "type": "click", "element_id": one }))?;
                let t1 = Instant::now();
                let action = cu_tools::ActionRequest {
                    window_id: id.clone(),
                    state_id: state.state_id,
                    actions: vec![spec],
                    ..Default::default()
                };
                action_answer = serde_json::to_string(&service.gui_action(&action).await?)?;
                act.push(ms(t1));
                state_answer = service.gui_state(&request).await?.outline;
                total.push(ms(t0));
            }
            // The answers as an agent reads them (the JSON text of the tool result), in o200k tokens.
            let click = cu_tools::ClickRequest { app: id.0.clone(), target: Some("1".into()), ..Default::default() };
            let click_answer = serde_json::to_string(&service.click(&click).await?)?;
            let bpe = tiktoken_rs::o200k_base()?;
            let tokens = |text: &str| bpe.encode_ordinary(text).len();
            #[allow(clippy::print_stdout)]
            {
                println!(
                    "{}",
                    serde_json::json!({ "observe_ms": median(observe), "act_ms_incl_effect_check": median(act),
                                        "observe_act_observe_ms": median(total),
                                        "outline_tokens": tokens(&state_answer),
                                        "gui_action_answer_tokens": tokens(&action_answer), "gui_action_answer": action_answer,
                                        "click_answer_tokens": tokens(&click_answer), "click_answer": click_answer })
                );
            }
        }
        _ => anyhow::bail!(
            "usage: bench snapshot REPS WINDOW_ID... | input REPS WINDOW_ID X Y | outline WINDOW_ID[#DOCUMENT]... | tokens < TEXT | loop REPS WINDOW_ID"
        ),
    }
    Ok(())
}
