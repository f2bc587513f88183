//! Change notifications of one application, so a wait wakes as soon as its window changes
//! instead of at its next poll: an `AXObserver` for the app's pid with the notifications a wait
//! condition can depend on registered on the app element, serviced by a thread of its own that
//! runs its run loop. The observer lives as long as the wait's [`AxWatch`]: dropping the watch
//! closes its channel, and the thread removes the observer and ends within one run-loop slice.

use std::ffi::c_void;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::backend::Watch;
use tokio::sync::mpsc;

use accessibility_sys::{
    kAXCreatedNotification, kAXErrorSuccess, kAXFocusedUIElementChangedNotification,
    kAXLayoutChangedNotification, kAXMenuOpenedNotification,
    kAXSelectedChildrenChangedNotification, kAXTitleChangedNotification,
    kAXUIElementDestroyedNotification, kAXValueChangedNotification, kAXWindowCreatedNotification,
    AXObserverAddNotification, AXObserverCreate, AXObserverGetRunLoopSource, AXObserverRef,
    AXObserverRemoveNotification, AXUIElementRef,
};
use core_foundation::base::{CFType, CFTypeRef, TCFType};
use core_foundation::runloop::{kCFRunLoopDefaultMode, CFRunLoop, CFRunLoopSource};
use core_foundation::string::{CFString, CFStringRef};
use cu_core::{Error, ErrorCode, Result};

use super::element::AxElement;

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

/// Called on the observer thread's run loop for each notification; `refcon` is the watch's
/// sender, which outlives the observer.
unsafe extern "C" fn on_notification(
    _observer: AXObserverRef,
    _element: AXUIElementRef,
    _notification: CFStringRef,
    refcon: *mut c_void,
) {
    // SAFETY: `refcon` is the `mpsc::Sender` that `observe` keeps alive until after the
    // observer's notifications are removed and its source has left the run loop.
    let tx = unsafe { &*(refcon as *const mpsc::Sender<()>) };
    // A full channel already holds a wake-up; one is enough.
    let _ = tx.try_send(());
}

fn not_supported(what: &str, code: i32) -> Error {
    Error::new(
        ErrorCode::NotSupported,
        format!("cannot observe the application's AX notifications: {what} ({code})"),
    )
}

/// One application's subscription, as the wait loop holds it.
pub(super) struct AxWatch {
    changes: mpsc::Receiver<()>,
}

#[async_trait]
impl Watch for AxWatch {
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

/// Subscribes to application `pid`'s notifications. Blocks until the observer thread has
/// registered them; `NOT_SUPPORTED` when no observer can be made (the caller then polls).
pub(super) fn watch(pid: i32) -> Result<AxWatch> {
    let (tx, changes) = mpsc::channel(1);
    let (ready_tx, ready) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("ax-observer".into())
        .spawn(move || observe(pid, tx, &ready_tx))
        .map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("cannot start the observer thread: {e}"),
            )
        })?;
    match ready.recv_timeout(Duration::from_secs(5)) {
        Ok(Ok(())) => Ok(AxWatch { changes }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(not_supported("the observer did not start within 5 s", 0)),
    }
}

/// The observer thread: registers, reports readiness, runs the run loop while the watch is
/// held, then removes everything it added.
fn observe(pid: i32, tx: mpsc::Sender<()>, ready: &std::sync::mpsc::Sender<Result<()>>) {
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
    let sender: Box<mpsc::Sender<()>> = Box::new(tx);
    let refcon = &*sender as *const mpsc::Sender<()> as *mut c_void;
    let names: Vec<CFString> = WATCHED.iter().map(|n| CFString::new(n)).collect();
    let mut added = Vec::new();
    for name in &names {
        // SAFETY: a live observer, element and string; `refcon` outlives the registration.
        let code = unsafe {
            AXObserverAddNotification(raw, app.raw(), name.as_concrete_TypeRef(), refcon)
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
    let _ = ready.send(Ok(()));
    while !sender.is_closed() {
        let _ = CFRunLoop::run_in_mode(mode, SLICE, false);
    }
    run_loop.remove_source(&source, mode);
    for name in added {
        // SAFETY: removes what was added above, on the same observer and element.
        unsafe { AXObserverRemoveNotification(raw, app.raw(), name.as_concrete_TypeRef()) };
    }
    drop(observer);
    drop(sender);
}
