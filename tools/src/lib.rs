//! The tool service of mcp-computer-use: every tool as a plain async function on [`Service`],
//! with serde request and answer types and `cu_core::Error` for failures. It knows no MCP: the
//! MCP server (`cu-mcp`), the CLI, the worker and the Desktop page all call these same functions.
//!
//! This file only declares and re-exports. From the top (tools) down (mechanisms):
//!
//! - the tools, each an `impl Service` block in its own file: `state.rs` (`gui_list`,
//!   `gui_state`), `action.rs` (`gui_action`), `label.rs` (`click`, `type_text` by visible
//!   label; `target.rs`: which window and which candidates), `wait.rs` (`gui_wait`),
//!   `window.rs` (`gui_window`), `clipboard.rs` (`gui_clipboard`), `look.rs`
//!   (`look_at_screen`), `open.rs` (`gui_open`), `health.rs` (`health`), `desktop.rs` (the
//!   Desktop page's internal call);
//! - the step runner, `steps.rs`: a validated step sent through the live gate;
//! - the live gate, `guard.rs` (the `Sender` every input goes through), and `approval.rs`
//!   (what happens when it stops something); `tighten.rs`: a controller's tightening of it;
//! - the effect watch, `effect/`: what a step visibly did;
//! - `llm.rs` (the model as the tools use it), `image.rs` (captures as JPEG), `marks.rs`;
//! - `service.rs`: [`Service`], what every tool shares, and the window helpers all of them use.
//!
//! A mechanism is a free function of its module that takes the service
//! (`effect::observe(service, …)`), so a call names the file it goes to; only `service.rs`'s
//! methods are called across files.

mod action;
#[cfg(test)]
mod ambiguous_tests;
mod approval;
mod choose;
mod click;
mod clipboard;
#[cfg(test)]
mod clipboard_tests;
#[cfg(test)]
mod consequence_tests;
mod desktop;
mod effect;
#[cfg(test)]
mod effect_tests;
#[cfg(test)]
mod gate_tests;
mod guard;
mod health;
mod how;
mod image;
mod into_view;
mod label;
mod llm;
mod look;
mod marks;
mod open;
mod readback;
#[cfg(test)]
mod rows_tests;
mod service;
mod state;
mod steps;
mod taken;
#[cfg(test)]
mod taken_tests;
mod target;
#[cfg(test)]
mod test_support;
mod tighten;
mod type_text;
#[cfg(test)]
mod visible_tests;
#[cfg(test)]
mod vocabulary_tests;
mod wait;
#[cfg(test)]
mod wait_tests;
mod window;
#[cfg(test)]
mod window_tests;

pub use action::{ActionRequest, ActionResult, Drag, Pointer, Press, Scroll, Step, StepResult};
pub use click::{ClickRequest, ClickResult, ClickStep};
pub use clipboard::{ClipboardOp, ClipboardRequest, ClipboardResult};
pub use desktop::{DesktopAnswer, DesktopRequest};
pub use effect::{Effect, Opened};
pub use guard::DESKTOP_PAGE_TITLE;
pub use health::{GuiHealth, HealthReport};
pub use how::Via;
pub use label::{Matched, Resolved, MAX_STEPS};
pub use llm::{ModelHealth, ModelRuntime, PingResult, ReleaseResult};
pub use look::{LookAnswer, LookImage, LookOutcome, LookRequest};
pub use open::{OpenRequest, OpenResult, OpenToolRequest};
pub use service::{CallGuard, ListResult, Outcome, Service, EFFECT_WAIT};
pub use state::{ChangeCount, StateRequest, StateResult, MAX_QUERY_CHARS};
pub use tighten::{Tightening, ARGUMENT as TIGHTENING_ARGUMENT};
pub use type_text::{TypeRequest, TypeResult};
pub use wait::{WaitOutcome, WaitRequest, WaitResult};
pub use window::{WindowOp, WindowOutcome, WindowRequest, WindowResult};
