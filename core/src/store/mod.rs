//! The stores: what is kept in the sessions directory, the user's alone ([`private`], written
//! whole by [`persist`]): saved observations ([`state_registry`]) and their outlines
//! ([`views`]), the ids each window's elements were given ([`kept_ids`]), `look_at_screen` sessions ([`sessions`]), the audit log ([`audit`]) and pending
//! approvals ([`approvals`]).

pub mod approvals;
pub mod audit;
pub mod kept_ids;
pub mod persist;
pub mod private;
pub mod sessions;
pub mod state_registry;
pub mod views;
