//! Benchmark helper: times our snapshot of each window (warm, one process) and XTEST click and
//! capture latency. `scripts/bench/snapshot-bench.sh` runs it beside pyatspi, xdotool and xwd.
//!
//! Usage: `bench snapshot REPS WINDOW_ID...` | `bench input REPS WINDOW_ID X Y`
//! Prints one JSON object per line on stdout.

use std::time::Instant;

use cu_core::backend::{InputEvent, MouseButton};
use cu_core::element::SnapshotOptions;
use cu_core::geometry::Point;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
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
        _ => anyhow::bail!(
            "usage: bench snapshot REPS WINDOW_ID... | bench input REPS WINDOW_ID X Y"
        ),
    }
    Ok(())
}
