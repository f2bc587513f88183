//! Change events of one window, so a wait wakes and an action's effect is answered as soon as
//! the window changes instead of at its next poll: UI Automation structure-changed,
//! property-changed (the properties a wait can judge) and text-changed handlers on the window's
//! subtree, registered when a watch begins and removed when it ends (the backend's `UiaWatch`).
//!
//! The handlers run on UI Automation's own threads (this client lives in the multithreaded
//! apartment): each maps its event onto [`crate::changes`], judges it there and queues the
//! verdict ([`cu_core::queued`]); no UI Automation call is made from inside a handler. The
//! handler objects stay on the COM thread that registered them, in its table of subscriptions,
//! until the watch is dropped. A settle is one `WM_NULL` sent to the window and answered by its
//! thread once it has handled what came before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::model::backend::{Seen, Watch};
use cu_core::queued::{EventSender, Queued};

use cu_core::{Error, ErrorCode, Result};
use uiautomation::events::{
    CustomEventHandler, CustomPropertyChangedEventHandler, CustomStructureChangedEventHandler,
    UIEventHandler, UIEventType, UIPropertyChangedEventHandler, UIStructureChangeEventHandler,
};
use uiautomation::types::{StructureChangeType, TreeScope, UIProperty};
use uiautomation::variants::Variant;
use uiautomation::{UIAutomation, UIElement};

use crate::changes::{self, Property, UiaChange};

use super::thread::ComThread;
use super::tree;

thread_local! {
    /// The subscriptions registered from this (COM) thread, by id.
    static SUBSCRIPTIONS: RefCell<HashMap<u64, Handlers>> = RefCell::new(HashMap::new());
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The properties whose change can satisfy a wait condition or show an effect (name, value,
/// enabled, checked, focused, on screen, expanded, selected, moved); [`property`] names each.
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

/// The pure name of a [`WATCHED`] property (`None` for any other).
fn property(p: UIProperty) -> Option<Property> {
    Some(match p {
        UIProperty::Name => Property::Name,
        UIProperty::ValueValue => Property::Value,
        UIProperty::IsEnabled => Property::Enabled,
        UIProperty::ToggleToggleState => Property::Toggle,
        UIProperty::HasKeyboardFocus => Property::KeyboardFocus,
        UIProperty::IsOffscreen => Property::Offscreen,
        UIProperty::ExpandCollapseExpandCollapseState => Property::ExpandCollapse,
        UIProperty::SelectionItemIsSelected => Property::Selected,
        UIProperty::BoundingRectangle => Property::Bounds,
        _ => return None,
    })
}

/// A handler that queues what each event says.
struct Signal(EventSender);

impl Signal {
    /// Queues the verdict on `change` (`None`: an event the watch did not ask for by name, which
    /// still wakes a wait).
    fn fire(&self, change: Option<UiaChange>) -> uiautomation::Result<()> {
        self.0.send(change.and_then(changes::seen));
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
        self.fire(Some(UiaChange::Structure))
    }
}

impl CustomPropertyChangedEventHandler for Signal {
    fn handle(
        &self,
        _sender: &UIElement,
        changed: UIProperty,
        _value: Variant,
    ) -> uiautomation::Result<()> {
        self.fire(property(changed).map(UiaChange::Property))
    }
}

impl CustomEventHandler for Signal {
    fn handle(&self, _sender: &UIElement, _event: UIEventType) -> uiautomation::Result<()> {
        self.fire(Some(UiaChange::Text))
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
pub(super) fn subscribe(automation: &UIAutomation, window: isize, tx: EventSender) -> Result<u64> {
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

fn register(automation: &UIAutomation, window: isize, tx: EventSender) -> Result<Handlers> {
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

/// One window's subscription, as the wait loop and the effect watch hold it; removed on the
/// COM thread when dropped.
pub(super) struct UiaWatch {
    pub(super) id: u64,
    /// The window (`HWND`), for settling.
    pub(super) hwnd: isize,
    pub(super) queue: Queued,
    pub(super) com: Arc<ComThread>,
}

#[async_trait]
impl Watch for UiaWatch {
    async fn changed(&mut self, within: Duration) -> bool {
        self.queue.changed(within).await
    }

    async fn seen(&mut self, within: Duration) -> Result<Option<Seen>> {
        self.queue.seen(within).await
    }

    fn clear(&mut self) {
        self.queue.clear();
    }

    fn proven(&self) -> bool {
        self.queue.proven()
    }

    async fn settle(&mut self, within: Duration) -> bool {
        let hwnd = self.hwnd;
        tokio::task::spawn_blocking(move || super::win32::answers(hwnd, within))
            .await
            .unwrap_or(false)
    }
}

impl Drop for UiaWatch {
    fn drop(&mut self) {
        let id = self.id;
        self.com.post(move |automation| remove(automation, id));
    }
}
