//! The polling effect watch, the entry of every step's watch ([`observe`]: the event watch
//! answers first where it can), and the settle before synthetic input.

use std::time::{Duration, Instant};

use cu_core::model::element::{SnapshotOptions, State};
use cu_core::model::window::WindowId;
use cu_core::ErrorCode;

use super::events::{self, Events};
use super::seen::{Effect, Fingerprint, Observed, FOCUS_QUIET, POLL};
use super::windows::{app_exited, WindowsBefore};
use crate::service::Service;

/// Polls the window for up to [`EFFECT_WAIT`](crate::EFFECT_WAIT) after an action (AT-SPI
/// actions are asynchronous). The acted window gone is `window_closed`; else a new window
/// of the same application is `window_opened`, whatever else changed; else a changed
/// fingerprint is `changed` — in a dialog only at the end of the watch
/// (its buttons show pressed a moment before they close it). The windows are listed after
/// the window is read, so a dialog that took focus from its parent (the change seen) is
/// listed by then, and a window is closed only when it is also no longer listed.
///
/// With `events` (the call's subscription), the window's events answer instead
/// ([`events::watch`]); polling is what is left where they cannot.
pub(crate) async fn observe(
    service: &Service,
    window: &WindowId,
    before: Option<&Fingerprint>,
    windows: Option<&WindowsBefore>,
    events: Option<&mut Events>,
) -> Observed {
    if let Some(events) = events {
        if let Some(seen) = events::watch(service, window, before, windows, events).await {
            return seen;
        }
    }
    let started = Instant::now();
    let differs =
        |now: Option<Fingerprint>| before.zip(now).is_some_and(|(b, n)| n.content_differs(b));
    let moved = |now: Option<Fingerprint>| before.zip(now).is_some_and(|(b, n)| n.focus_differs(b));
    let (mut last, mut still_since) = (None, Instant::now());
    loop {
        let read = crate::effect::fingerprint(service, window).await;
        let listed = service.backend.shown_windows().await.ok();
        // A window that cannot be read for a moment while a dialog opens is not closed:
        // gone means unreadable and no longer listed.
        let closed = matches!(&read, Err(e) if e.code == ErrorCode::WindowNotFound)
            && listed
                .as_ref()
                .is_none_or(|all| all.iter().all(|w| &w.id != window));
        let now = read.ok();
        let dialog = now.is_some_and(|f| f.dialog);
        // GTK 4 gives a dialog's root no dialog role: a window of an app that has another
        // window is waited on like one (its Return changes a field, then closes it).
        let dialog = dialog
            || windows
                .zip(listed.as_ref())
                .is_some_and(|(before, all)| before.has_sibling(window, all));
        if now.is_some() && now != last {
            (last, still_since) = (now, Instant::now());
        }
        let opened = windows
            .zip(listed.as_ref())
            .and_then(|(before, now)| before.opened(now));
        let still = still_since.elapsed() >= FOCUS_QUIET;
        if closed {
            return Observed {
                effect: Effect::WindowClosed,
                fingerprint: now,
                opened,
                app_exited: app_exited(service, windows, listed.as_deref()).await,
            };
        }
        let effect = if opened.is_some() {
            Some(Effect::WindowOpened)
        } else if differs(now) && !dialog {
            // A dialog is watched to the end: its Return or OK changes a field first and
            // closes it a moment later (GTK 4's chooser: 0.6 s), which is the effect.
            Some(Effect::Changed)
        } else if moved(now) && !differs(now) && still {
            // Only the focus moved, and nothing else followed for a moment.
            Some(Effect::FocusMoved)
        } else {
            None
        };
        if let Some(effect) = effect {
            return Observed {
                effect,
                fingerprint: now,
                opened,
                app_exited: false,
            };
        }
        // A dialog that changed gets half as long again to close.
        let limit = if dialog && differs(last) {
            service.effect_wait * 3 / 2
        } else {
            service.effect_wait
        };
        if started.elapsed() >= limit {
            let effect = if differs(last) {
                Effect::Changed
            } else if moved(last) {
                Effect::FocusMoved
            } else if before.is_some() {
                Effect::NoChange
            } else {
                Effect::NotChecked
            };
            return Observed {
                effect,
                fingerprint: last,
                opened: None,
                app_exited: false,
            };
        }
        tokio::time::sleep(POLL.min(limit.saturating_sub(started.elapsed()))).await;
    }
}

/// Brings the window forward before synthetic input and waits for it to be focused and its
/// tree to settle, so the focus change of the activation is not reported as the action's
/// effect: unchanged for 150 ms once an element has taken focus (toolkits give the focus
/// widget its focus some time after the window is activated: Qt later than 150 ms), or for
/// 600 ms in a window where nothing has taken it (yet); at most 1.5 s.
pub(crate) async fn activate_and_settle(service: &Service, window: &WindowId) {
    let focused = || async {
        service
            .backend
            .list_windows()
            .await
            .ok()
            .and_then(|all| all.into_iter().find(|w| &w.id == window))
            .is_some_and(|w| w.focused)
    };
    if focused().await || service.backend.activate(window).await.is_err() {
        return;
    }
    let deadline = Instant::now() + Duration::from_millis(1500);
    while !focused().await && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let options = SnapshotOptions {
        time_budget_ms: 1500,
        ..SnapshotOptions::default()
    };
    let (mut last, mut since) = (None, Instant::now());
    while Instant::now() < deadline {
        let snapshot = service.backend.snapshot(window, &options).await.ok();
        let now = snapshot.as_ref().map(Fingerprint::of);
        let has_focus = snapshot
            .as_ref()
            .is_some_and(|s| s.nodes.iter().any(|n| n.states.contains(State::Focused)));
        let quiet = if has_focus { 150 } else { 600 };
        if now.is_none() || now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() >= Duration::from_millis(quiet) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}
