//! The effect watch: what a step visibly did to its window, seen and never guessed.
//!
//! - `seen.rs`: the answer ([`Effect`]) and what is compared ([`Fingerprint`]);
//! - `windows.rs`: the windows listed around a step (opened, closed, the app gone);
//! - `events.rs`: the watch by the window's change events;
//! - `watch.rs`: the entry ([`observe`]), polling where events cannot answer, and the settle
//!   before synthetic input ([`activate_and_settle`]).

mod events;
mod seen;
mod watch;
mod windows;

pub(crate) use events::subscribe;
pub use seen::Effect;
pub(crate) use seen::{fingerprint, Fingerprint};
pub(crate) use watch::{activate_and_settle, observe};
pub(crate) use windows::windows_before;
pub use windows::Opened;
#[cfg(test)]
pub(crate) use windows::WindowsBefore;
