//! Watches of the scripted world: one that wakes on any change, and one that tells changes apart
//! the way AT-SPI events do ([`crate::Scripted::with_typed_events`]).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cu_core::model::backend::{Seen, Watch};
use cu_core::model::element::State;
use cu_core::model::window::WindowId;
use cu_core::Result;

use crate::world::World;

/// A watch on the scripted world: any change of any window counts.
pub(crate) struct WorldWatch(pub(crate) tokio::sync::watch::Receiver<u64>);

#[async_trait]
impl Watch for WorldWatch {
    async fn changed(&mut self, within: std::time::Duration) -> bool {
        matches!(
            tokio::time::timeout(within, self.0.changed()).await,
            Ok(Ok(()))
        )
    }
}

/// A watch that tells changes apart, as AT-SPI events do: it compares what the watched window
/// shows (content and focus) and which windows exist with what it saw last, at each change.
pub(crate) struct TypedWatch {
    pub(crate) world: Arc<Mutex<World>>,
    /// Wakes on any change, as [`WorldWatch`] does.
    pub(crate) wake: WorldWatch,
    pub(crate) window: WindowId,
    pub(crate) last: Look,
}

/// What a typed watch saw last.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Look {
    pub(crate) content: String,
    pub(crate) focus: Option<usize>,
    pub(crate) windows: Vec<WindowId>,
}

impl Look {
    pub(crate) fn of(world: &Arc<Mutex<World>>, window: &WindowId) -> Look {
        let w = match world.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        let win = w.windows.iter().find(|x| &x.info.id == window);
        Look {
            content: win
                .map(|x| {
                    x.nodes
                        .iter()
                        .map(|n| {
                            format!(
                                "{:?}{:?}{:?}{:?}",
                                n.role,
                                n.name,
                                n.value,
                                n.states.without(State::Focused)
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
            focus: win.and_then(|x| x.focus),
            windows: w.windows.iter().map(|x| x.info.id.clone()).collect(),
        }
    }

    /// What changed from `before` to this look, as one event would say it.
    pub(crate) fn since(&self, before: &Look) -> Option<Seen> {
        if self.content != before.content {
            Some(Seen::Content)
        } else if self.focus != before.focus {
            Some(Seen::Focus)
        } else if self.windows.iter().any(|w| !before.windows.contains(w)) {
            Some(Seen::NewWindow)
        } else if self.windows != before.windows {
            Some(Seen::Elsewhere)
        } else {
            None
        }
    }
}

#[async_trait]
impl Watch for TypedWatch {
    async fn changed(&mut self, within: std::time::Duration) -> bool {
        self.wake.changed(within).await
    }

    async fn seen(&mut self, within: std::time::Duration) -> Result<Option<Seen>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let now = Look::of(&self.world, &self.window);
            let seen = now.since(&self.last);
            self.last = now;
            if seen.is_some() {
                return Ok(seen);
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() || !self.wake.changed(left).await {
                return Ok(None);
            }
        }
    }

    fn clear(&mut self) {
        self.last = Look::of(&self.world, &self.window);
    }

    async fn settle(&mut self, _within: std::time::Duration) -> bool {
        true
    }
}
