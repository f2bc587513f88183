//! Change events of one window, so a wait wakes as soon as the window changes instead of at
//! its next poll: UI Automation structure-changed, property-changed (the properties a wait can
//! judge) and text-changed handlers on the window's subtree, registered when a wait begins and
//! removed when it ends (the backend's `UiaWatch`).
//!
//! The handlers run on UI Automation's own threads (this client lives in the multithreaded
//! apartment) and only signal a channel: no UI Automation call is made from inside a handler.
//! The handler objects stay on the COM thread that registered them, in its table of
//! subscriptions, until the watch is dropped.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::backend::Watch;
use tokio::sync::mpsc;

use cu_core::{Error, ErrorCode, Result};
use uiautomation::events::{
    CustomEventHandler, CustomPropertyChangedEventHandler, CustomStructureChangedEventHandler,
    UIEventHandler, UIEventType, UIPropertyChangedEventHandler, UIStructureChangeEventHandler,
};
use uiautomation::types::{StructureChangeType, TreeScope, UIProperty};
use uiautomation::variants::Variant;
use uiautomation::{UIAutomation, UIElement};

use super::thread::ComThread;
use super::tree;

thread_local! {
    /// The subscriptions registered from this (COM) thread, by id.
    static SUBSCRIPTIONS: RefCell<HashMap<u64, Handlers>> = RefCell::new(HashMap::new());
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The properties whose change can satisfy a wait condition (name, value, enabled, checked,
/// focused, on screen, expanded, selected, moved).
const WATCHED: [UIProperty; 9] = [
    UIProperty::Name,
    UIProperty::ValueValue,
    UIProperty::IsEnabled,
    UIProperty::ToggleToggleState,
    UIProperty::HasKeyboardFocus,
    UIProperty::IsOffscreen,
    UIProperty::ExpandCollapseExpandCollapseState,
    UIProperty::SelectionItemIsSelected,
    UIProperty::BoundingRectangle,
];

/// A handler that only says "something changed".
struct Signal(mpsc::Sender<()>);

impl Signal {
    fn fire(&self) -> uiautomation::Result<()> {
        // A full channel already holds a wake-up; one is enough.
        let _ = self.0.try_send(());
        Ok(())
    }
}

impl CustomStructureChangedEventHandler for Signal {
    fn handle(
        &self,
        _sender: &UIElement,
        _change: StructureChangeType,
        _runtime_id: Option<&[i32]>,
    ) -> uiautomation::Result<()> {
        self.fire()
    }
}

impl CustomPropertyChangedEventHandler for Signal {
    fn handle(
        &self,
        _sender: &UIElement,
        _property: UIProperty,
        _value: Variant,
    ) -> uiautomation::Result<()> {
        self.fire()
    }
}

impl CustomEventHandler for Signal {
    fn handle(&self, _sender: &UIElement, _event: UIEventType) -> uiautomation::Result<()> {
        self.fire()
    }
}

fn subscribe_failed(e: &uiautomation::Error) -> Error {
    Error::new(
        ErrorCode::NotSupported,
        format!("cannot subscribe to the window's UI Automation events: {e}"),
    )
}

/// The handlers of one subscription, kept on the COM thread until it is removed.
struct Handlers {
    root: UIElement,
    structure: UIStructureChangeEventHandler,
    property: UIPropertyChangedEventHandler,
    text: UIEventHandler,
}

/// Registers the handlers on `window`'s subtree and keeps them in this thread's table; each
/// signals `tx` on a change. Runs on the COM thread; answers the subscription's id.
pub(super) fn subscribe(
    automation: &UIAutomation,
    window: isize,
    tx: mpsc::Sender<()>,
) -> Result<u64> {
    let handlers = register(automation, window, tx)?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    SUBSCRIPTIONS.with(|t| t.borrow_mut().insert(id, handlers));
    Ok(id)
}

/// Removes subscription `id` from this thread's table and its handlers from UI Automation.
pub(super) fn remove(automation: &UIAutomation, id: u64) {
    if let Some(handlers) = SUBSCRIPTIONS.with(|t| t.borrow_mut().remove(&id)) {
        unsubscribe(automation, &handlers);
    }
}

fn register(automation: &UIAutomation, window: isize, tx: mpsc::Sender<()>) -> Result<Handlers> {
    let root = tree::window_element(automation, window)?;
    let handlers = Handlers {
        structure: Signal(tx.clone()).into(),
        property: Signal(tx.clone()).into(),
        text: Signal(tx).into(),
        root,
    };
    let subscribed = automation
        .add_structure_changed_event_handler(
            &handlers.root,
            TreeScope::Subtree,
            None,
            &handlers.structure,
        )
        .and_then(|()| {
            automation.add_property_changed_event_handler(
                &handlers.root,
                TreeScope::Subtree,
                None,
                &handlers.property,
                &WATCHED,
            )
        })
        .and_then(|()| {
            automation.add_automation_event_handler(
                UIEventType::Text_TextChanged,
                &handlers.root,
                TreeScope::Subtree,
                None,
                &handlers.text,
            )
        });
    match subscribed {
        Ok(()) => Ok(handlers),
        Err(e) => {
            unsubscribe(automation, &handlers);
            Err(subscribe_failed(&e))
        }
    }
}

/// Removes the handlers (one that was never added fails harmlessly; each is tried).
fn unsubscribe(automation: &UIAutomation, h: &Handlers) {
    for removed in [
        automation.remove_structure_changed_event_handler(&h.root, &h.structure),
        automation.remove_property_changed_event_handler(&h.root, &h.property),
        automation.remove_automation_event_handler(UIEventType::Text_TextChanged, &h.root, &h.text),
    ] {
        if let Err(e) = removed {
            tracing::debug!("removing a UI Automation handler: {e}");
        }
    }
}

/// One window's subscription, as the wait loop holds it; removed on the COM thread when dropped.
pub(super) struct UiaWatch {
    pub(super) id: u64,
    pub(super) changes: mpsc::Receiver<()>,
    pub(super) com: Arc<ComThread>,
}

/// The channel the handlers signal: one queued wake-up stands for any number of changes.
pub(super) fn channel() -> (mpsc::Sender<()>, mpsc::Receiver<()>) {
    mpsc::channel(1)
}

#[async_trait]
impl Watch for UiaWatch {
    async fn changed(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        match tokio::time::timeout_at(deadline, self.changes.recv()).await {
            Ok(Some(())) => true,
            Err(_) => false,
            // The subscription is gone: report nothing, at the caller's pace.
            Ok(None) => {
                tokio::time::sleep_until(deadline).await;
                false
            }
        }
    }
}

impl Drop for UiaWatch {
    fn drop(&mut self) {
        let id = self.id;
        self.com.post(move |automation| remove(automation, id));
    }
}
