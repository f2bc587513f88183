//! The policies: what the tools decide from the model. The safety gate ([`safety`],
//! [`safety_words`]), what input can activate ([`activation`]) and what a press will answer
//! ([`consequence`]); which element a label names ([`matching`]); which programs may be started
//! ([`launch`]); what `gui_wait` waits for ([`wait`]); and `look_at_screen`'s reading of a window
//! ([`extract`]), its questions ([`question`]), answers ([`sanity`]) and patience ([`timeouts`]).

pub mod activation;
pub mod consequence;
pub mod extract;
pub mod launch;
pub mod matching;
pub mod question;
pub mod safety;
pub mod safety_words;
pub mod sanity;
pub mod timeouts;
pub mod wait;
