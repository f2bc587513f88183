//! The stores: what is kept in the sessions directory, the user's alone ([`private`], written
//! whole by [`persist`]): saved observations ([`state_registry`]) and their outlines
//! ([`views`]), `look_at_screen` sessions ([`sessions`]), the audit log ([`audit`]) and pending
//! approvals ([`approvals`]).

pub mod approvals;
pub mod audit;
pub mod persist;
pub mod private;
pub mod sessions;
pub mod state_registry;
pub mod views;
