//! Change notifications of one application, so a wait wakes and an action's effect is answered
//! as soon as its window changes instead of at the next poll: an `AXObserver` for the app's pid
//! with the notifications a wait condition can depend on registered on the app element,
//! serviced by a thread of its own that runs its run loop. Each notification is judged by
//! [`crate::changes`] (its element placed in the watched window or another, where that matters)
//! and the verdict queued ([`cu_core::queued`]).
//!
//! A settle ([`Watch::settle`]) is one AX call to the app made on the observer thread, which then
//! handles every notification already on its run loop's port: what the app sent before answering
//! is queued when the settle returns.
//!
//! The observer lives as long as the watch's [`AxWatch`]: dropping the watch closes its queue,
//! and the thread removes the observer and ends within one run-loop slice.

use std::ffi::c_void;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::model::backend::{Seen, Watch};
use cu_core::queued::{EventSender, Heard, Queued};
use tokio::sync::oneshot;

use accessibility_sys::{
    kAXCreatedNotification, kAXErrorSuccess, kAXFocusedUIElementChangedNotification,
    kAXLayoutChangedNotification, kAXMenuOpenedNotification,
    kAXSelectedChildrenChangedNotification, kAXTitleChangedNotification,
    kAXUIElementDestroyedNotification, kAXValueChangedNotification, kAXWindowCreatedNotification,
    AXObserverAddNotification, AXObserverCreate, AXObserverGetRunLoopSource, AXObserverRef,
    AXObserverRemoveNotification, AXUIElementRef,
};
use core_foundation::base::{CFType, CFTypeRef, TCFType};
use core_foundation::runloop::{
    kCFRunLoopDefaultMode, CFRunLoop, CFRunLoopRunResult, CFRunLoopSource, CFRunLoopWakeUp,
};
use core_foundation::string::{CFString, CFStringRef};
use cu_core::{Error, ErrorCode, Result};

use super::element::{AxElement, AxValue};
use super::windows;
use crate::changes::{self, Place};

/// The notifications whose arrival can change what a wait condition sees.
const WATCHED: [&str; 9] = [
    kAXValueChangedNotification,
    kAXTitleChangedNotification,
    kAXCreatedNotification,
    kAXUIElementDestroyedNotification,
    kAXFocusedUIElementChangedNotification,
    kAXSelectedChildrenChangedNotification,
    kAXLayoutChangedNotification,
    kAXWindowCreatedNotification,
    kAXMenuOpenedNotification,
];

/// How long the observer thread runs its run loop before checking that the watch is still held.
const SLICE: Duration = Duration::from_millis(250);

/// What the callback needs: the queue, and the watched window to place elements against.
struct Refcon {
    tx: EventSender,
    window: Option<AxElement>,
}

/// Called on the observer thread's run loop for each notification; `refcon` is the watch's
/// [`Refcon`], which outlives the observer.
unsafe extern "C" fn on_notification(
    _observer: AXObserverRef,
    element: AXUIElementRef,
    notification: CFStringRef,
    refcon: *mut c_void,
) {
    // SAFETY: `refcon` is the `Refcon` that `observe` keeps alive until after the observer's
    // notifications are removed and its source has left the run loop.
    let refcon = unsafe { &*(refcon as *const Refcon) };
    if notification.is_null() {
        return;
    }
    // SAFETY: a non-null CFString the observer passes for the duration of the call (get rule).
    let name = unsafe { CFString::wrap_under_get_rule(notification) }.to_string();
    let place = match &refcon.window {
        Some(window) if changes::needs_place(&name) => place(element, window),
        _ => Place::Unknown,
    };
    refcon.tx.send(changes::seen(&name, place));
}

/// Whether `element` is in `window` (one AX call to the app, on the observer thread).
fn place(element: AXUIElementRef, window: &AxElement) -> Place {
    let Some(element) = AxElement::from_get_rule(element) else {
        return Place::Unknown;
    };
    if &element == window {
        return Place::InWindow;
    }
    match element.attribute("AXWindow") {
        Ok(AxValue::Element(w)) if &w == window => Place::InWindow,
        Ok(AxValue::Element(_)) => Place::Elsewhere,
        _ => Place::Unknown,
    }
}

fn not_supported(what: &str, code: i32) -> Error {
    Error::new(
        ErrorCode::NotSupported,
        format!("cannot observe the application's AX notifications: {what} ({code})"),
    )
}

/// The observer thread's run loop (retained; run loops are thread-safe), to wake it for a
/// settle.
struct Waker(CFRunLoop);

impl Waker {
    fn wake(&self) {
        // SAFETY: a retained, valid run loop; `CFRunLoopWakeUp` is meant to be called from
        // other threads.
        unsafe { CFRunLoopWakeUp(self.0.as_concrete_TypeRef()) };
    }
}

/// One application's subscription, as the wait loop and the effect watch hold it.
pub(super) struct AxWatch {
    queue: Queued,
    /// Settle requests for the observer thread, each answered with whether the app answered.
    settles: std_mpsc::Sender<oneshot::Sender<bool>>,
    waker: Waker,
}

#[async_trait]
impl Watch for AxWatch {
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
        let (reply, answer) = oneshot::channel();
        if self.settles.send(reply).is_err() {
            return false;
        }
        self.waker.wake();
        matches!(tokio::time::timeout(within, answer).await, Ok(Ok(true)))
    }
}

/// Subscribes to the notifications of window `number`'s application (`pid`), placing elements
/// against that window; `heard` is the app's record of having sent events. Blocks until the
/// observer thread has registered them; `NOT_SUPPORTED` when no observer can be made (the caller
/// then polls).
pub(super) fn watch(pid: i32, number: u32, heard: Heard) -> Result<AxWatch> {
    let (tx, queue) = cu_core::queued::queue(heard);
    let (settles, requests) = std_mpsc::channel();
    let (ready_tx, ready) = std_mpsc::channel();
    std::thread::Builder::new()
        .name("ax-observer".into())
        .spawn(move || observe(pid, number, tx, &requests, &ready_tx))
        .map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("cannot start the observer thread: {e}"),
            )
        })?;
    match ready.recv_timeout(Duration::from_secs(5)) {
        Ok(Ok(waker)) => Ok(AxWatch {
            queue,
            settles,
            waker,
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(not_supported("the observer did not start within 5 s", 0)),
    }
}

/// At most how many notifications a settle handles (an app that keeps sending does not hold it).
const DRAIN_AT_MOST: usize = 1024;

/// Handles the notifications already on this thread's run loop, without waiting for more.
fn drain(mode: CFStringRef) {
    for _ in 0..DRAIN_AT_MOST {
        if CFRunLoop::run_in_mode(mode, Duration::ZERO, true) != CFRunLoopRunResult::HandledSource {
            break;
        }
    }
}

/// The observer thread: registers, reports readiness, runs the run loop while the watch is
/// held (answering settles between slices), then removes everything it added.
fn observe(
    pid: i32,
    number: u32,
    tx: EventSender,
    settles: &std_mpsc::Receiver<oneshot::Sender<bool>>,
    ready: &std_mpsc::Sender<Result<Waker>>,
) {
    let Some(app) = AxElement::application(pid) else {
        let _ = ready.send(Err(not_supported("no application element", 0)));
        return;
    };
    let mut raw: AXObserverRef = std::ptr::null_mut();
    // SAFETY: `raw` receives a retained observer (create rule) on success.
    let created = unsafe { AXObserverCreate(pid, on_notification, &mut raw) };
    if created != kAXErrorSuccess || raw.is_null() {
        let _ = ready.send(Err(not_supported("AXObserverCreate", created)));
        return;
    }
    // SAFETY: a non-null observer we own (create rule); released when `observer` drops.
    let observer = unsafe { CFType::wrap_under_create_rule(raw as CFTypeRef) };
    // The callback's refcon; it lives on this frame until the observer is torn down below.
    let refcon = Box::new(Refcon {
        tx,
        window: windows::find(number).map(|l| l.element),
    });
    let refcon_ptr = &*refcon as *const Refcon as *mut c_void;
    let names: Vec<CFString> = WATCHED.iter().map(|n| CFString::new(n)).collect();
    let mut added = Vec::new();
    for name in &names {
        // SAFETY: a live observer, element and string; `refcon` outlives the registration.
        let code = unsafe {
            AXObserverAddNotification(raw, app.raw(), name.as_concrete_TypeRef(), refcon_ptr)
        };
        if code == kAXErrorSuccess {
            added.push(name);
        }
    }
    if added.is_empty() {
        let _ = ready.send(Err(not_supported("no notification could be registered", 0)));
        return;
    }
    // SAFETY: the observer's run-loop source (get rule: retained here by the wrapper).
    let source: CFRunLoopSource =
        unsafe { TCFType::wrap_under_get_rule(AXObserverGetRunLoopSource(raw)) };
    let run_loop = CFRunLoop::get_current();
    // SAFETY: reading the extern constant mode name.
    let mode = unsafe { kCFRunLoopDefaultMode };
    run_loop.add_source(&source, mode);
    let _ = ready.send(Ok(Waker(run_loop.clone())));
    while !refcon.tx.is_closed() {
        let _ = CFRunLoop::run_in_mode(mode, SLICE, false);
        while let Ok(reply) = settles.try_recv() {
            // One round trip to the app: it answers once it has handled what came before,
            // and the notifications it sent meanwhile are on this run loop's port by then.
            let answered = app.attribute("AXRole").is_ok();
            drain(mode);
            let _ = reply.send(answered);
        }
    }
    run_loop.remove_source(&source, mode);
    for name in added {
        // SAFETY: removes what was added above, on the same observer and element.
        unsafe { AXObserverRemoveNotification(raw, app.raw(), name.as_concrete_TypeRef()) };
    }
    drop(observer);
    drop(refcon);
}
