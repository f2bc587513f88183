//! The model every backend fills and every tool reads.
//!
//! `cu-core` is the platform-free heart of mcp-computer-use. It defines:
//!
//! - [`geometry`]: rectangles and points in window-relative logical pixels, the one public
//!   coordinate space;
//! - [`window`]: top-level windows as a backend lists them;
//! - [`role`] and [`element`]: the element tree, with one role and state vocabulary shared by all
//!   platforms, element identities another process can resolve again, and truncation markers so a
//!   partial tree says it is partial;
//! - [`backend`]: the object-safe [`Backend`](backend::Backend) trait that each platform adapter
//!   implements, plus the [`Unavailable`](backend::Unavailable) fallback;
//! - [`error`]: one error type with stable codes, `retryable` and `suggestion`, and the CLI exit
//!   codes;
//! - [`config`]: defaults < TOML file < `MCP_CU_*` environment, validated;
//! - [`keys`]: key combinations parsed once for every backend;
//! - [`launch`]: which programs `gui_open` may start (desktop applications by default);
//! - [`text`]: label normalization (case folding, NFKC, Hebrew niqqud, marks);
//! - [`extract`]: what a window says, read in code (profiles; groundwork of `look_at_screen`);
//! - [`sessions`]: `look_at_screen` session files (what changed, cached answers);
//! - [`sanity`]: whether a model's answer is worth passing on (repetition, unseen numbers, no
//!   word of the window), else `look_at_screen` answers from extraction;
//! - [`timeouts`]: how long to wait for the model (smart, adaptive, bumped, budgeted);
//! - [`question`]: `look_at_screen` question limits and hints;
//! - [`matching`]: which element a visible label names (the tiered matching hierarchy);
//! - [`safety`]: the blocklist gate every acting tool passes; [`receiver`] and [`activation`]:
//!   what a live probe says will receive an input, and which keyboard input can activate;
//!   [`consequence`]: the dialog a button answers and the buttons a Return lands on;
//! - [`approvals`]: pending approvals a person decides on the Desktop page;
//! - [`private`]: the sessions directory and its files, the user's alone (0700/0600, no links);
//! - [`changes`] and [`views`]: what changed between two observations, and the outlines kept
//!   to compare against;
//! - [`wait`]: the conditions `gui_wait` waits for, judged on an observation;
//! - [`walk`]: the bounded tree walk the synchronous backends (UIA, AX) share;
//! - `queued` (feature `queued`): the receiving half of the UIA and AX change-event watches.
//!
//! It deliberately has no GUI or accessibility API and no network; only the `queued` feature
//! brings tokio's channels and timers. It can be tested anywhere.

pub mod activation;
pub mod approvals;
pub mod audit;
pub mod backend;
pub mod changes;
mod chosen;
pub mod config;
pub mod confusables;
pub mod consequence;
mod drawn;
pub mod element;
pub mod error;
pub mod extract;
pub mod geometry;
pub mod keys;
pub mod launch;
pub mod matching;
pub mod outline;
pub mod persist;
pub mod private;
pub mod question;
#[cfg(any(feature = "queued", test))]
pub mod queued;
pub mod receiver;
pub mod role;
mod runs;
pub mod safety;
pub mod safety_words;
pub mod sanity;
pub mod sessions;
pub mod state_registry;
pub mod text;
pub mod timeouts;
pub mod views;
pub mod wait;
pub mod walk;
pub mod window;

pub use error::{Error, ErrorAnswer, ErrorCode, Result};
