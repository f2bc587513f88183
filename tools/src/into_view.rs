//! Scrolling an element into view before a step acts on it, as a person scrolls to what they
//! want to click: an element of the observation that lay outside the viewport (listed with
//! `all: true` or found by `query`) is scrolled to by the toolkit (AT-SPI `ScrollTo`, UIA
//! `ScrollItemPattern`, AX `AXScrollToVisible`), its position read again until it stops moving,
//! and the step acts there. Positions are never taken while the content is still moving.

use std::time::{Duration, Instant};

use cu_core::model::backend::SemanticAction;
use cu_core::model::geometry::Rect;
use cu_core::model::node::State;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};

use crate::guard::Sender;
use crate::service::Service;

/// How long the content may take to come to rest after the scroll.
const SETTLE: Duration = Duration::from_millis(1500);
const POLL: Duration = Duration::from_millis(40);

/// `element` as it is on screen now: itself when it was on screen, else scrolled into view and
/// read again once its position holds still. `ELEMENT_NOT_VISIBLE` when the toolkit cannot
/// scroll to it or it stays outside the window (a closed menu's item, a background tab).
pub(crate) async fn on_screen(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
) -> Result<SavedElement> {
    if !element.offscreen {
        return Ok(element.clone());
    }
    let not_visible = |why: &str| {
        Error::new(
            ErrorCode::ElementNotVisible,
            format!(
                "{} ({} {:?}) is not on screen, and {why}",
                element.id, element.role, element.name
            ),
        )
        .with_suggestion(
            "Open what holds it (a menu, a tab, a collapsed section) and observe again.",
        )
    };
    sender
        .perform(&element.identity, &SemanticAction::ScrollIntoView)
        .await
        .map_err(|e| match e.code {
            ErrorCode::ActionNotSupported => not_visible("its toolkit cannot scroll to it"),
            _ => e,
        })?;
    let window = state.window_rect();
    let deadline = Instant::now() + SETTLE;
    let mut last: Option<Rect> = None;
    loop {
        let node = service.element_now(&state.window, &element.identity).await;
        let bounds = node
            .as_ref()
            .filter(|n| !n.states.contains(State::Offscreen))
            .and_then(|n| n.bounds)
            .filter(|b| !b.is_empty());
        let inside = bounds.is_some_and(|b| window.is_none_or(|w| b.intersection(&w).is_some()));
        if inside && bounds == last {
            return Ok(SavedElement {
                bounds,
                offscreen: false,
                ..element.clone()
            });
        }
        if Instant::now() >= deadline {
            return Err(not_visible(
                "it stayed outside the window after scrolling to it",
            ));
        }
        last = bounds;
        tokio::time::sleep(POLL).await;
    }
}
