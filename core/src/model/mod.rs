//! The model: what a backend fills and every tool reads. Geometry and windows; the element
//! tree ([`node`], [`element`]: nodes and a window's snapshot, tidied the same way for every
//! backend by the private passes `runs`, `chosen` and `drawn`); the [`backend`] trait every
//! platform adapter implements; key combinations ([`keys`]); what a live probe says will
//! receive input ([`receiver`]); a snapshot rendered as the compact outline ([`outline`]: one
//! element's line in `line`, a query's matches and tables read as rows in `listing` and `rows`),
//! and compared with an earlier one ([`changes`]); label text ([`text`], [`confusables`]); the
//! bounded walk the synchronous backends share ([`walk`]).

pub mod backend;
pub mod changes;
mod chosen;
mod clipped;
pub mod confusables;
mod drawn;
pub mod element;
pub mod geometry;
pub mod keys;
mod line;
mod listing;
pub mod node;
pub mod outline;
pub mod receiver;
pub mod role;
mod rows;
mod runs;
pub mod swapped;
pub mod text;
pub mod view;
pub mod walk;
pub mod window;
