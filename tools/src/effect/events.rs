//! The effect watch by events: a step's effect answered as soon as the window's change events
//! show it, instead of by reading the whole window again and again.
//!
//! The call subscribes before its first input ([`subscribe`]) and forgets what came
//! before each step's input ([`Events::before_input`]). After the input, the windows are listed
//! every [`POLL`] and before any answer, as the display server lists them
//! ([`Backend::shown_windows`](cu_core::model::backend::Backend::shown_windows): a busy app's
//! accessibility answers wait behind its work); a closed or opened window wins, as in the
//! polling watch. The window's own events (the backend's [`Watch::seen`]) decide:
//!
//! - a content event, with the app quiet elsewhere (building a dialog), then [`EVENT_QUIET`]:
//!   `changed`; in a dialog only at the end of the watch (its Return changes a field, then
//!   closes it). After the first content event only a new window is still told apart
//!   ([`Watch::seen_new_window`]): placing each of a busy app's events costs round trips to it;
//! - only focus events, then [`FOCUS_QUIET`] without a content one: `focus_moved`;
//! - before either is answered, and at the end of the watch, one round trip to the app
//!   ([`Watch::settle`]: Mousepad answers only once its Save As dialog is built), what it sent
//!   before answering ([`Watch::seen_before_settle`]; not what it keeps sending after: Calc
//!   sends events for 200 ms after a key) and a new look at the windows;
//! - no event at all: the window is read once and compared with the baseline when there is one;
//!   without one, `no_change` when the app was seen sending events, else `not_checked`. The
//!   baseline read before a call's first input is skipped for an app already seen sending
//!   events to this process ([`Watch::proven`]); later steps have none (their predecessor was
//!   answered by events).
//!
//! A backend whose watch cannot tell events apart (or a subscription that breaks) leaves the step
//! to the polling watch, [`observe`](super::observe).

use std::time::{Duration, Instant};

use cu_core::model::backend::{Seen, Watch};
use cu_core::model::window::WindowId;
use cu_core::ErrorCode;

use super::seen::{Effect, Fingerprint, Observed, FOCUS_QUIET, POLL};
use super::windows::{app_exited, WindowsBefore};
use crate::service::Service;

/// How long after the window's first content event `changed` is answered (a dialog mapped a
/// moment after its parent changed is seen first); also how long the app must stay quiet
/// elsewhere.
const EVENT_QUIET: Duration = Duration::from_millis(10);

/// How long the app is given to answer the round trip before a step is answered.
const SETTLE: Duration = Duration::from_millis(2000);

/// A call's subscription to the acted window's change events.
pub(crate) struct Events {
    watch: Box<dyn Watch>,
    /// An event of the window was seen in this call: the app sends them, so a step without one
    /// changed nothing the events would show.
    proven: bool,
    /// The window is a dialog, as observed or last read.
    dialog: bool,
    /// The step pressed something whose label announces a dialog ("Rename...").
    announced: bool,
}

impl Events {
    /// Whether a step without events can be answered without a baseline read of the window
    /// (the app was seen sending events): then the call skips the read before its first input.
    pub(crate) fn proven(&self) -> bool {
        self.proven
    }

    /// Forgets what came before the step's input. `announces_window`: the step presses
    /// something whose label says a window follows ("Rename...", "Save As…"): its effect waits
    /// the watch out for that window before answering `changed` (an app building the dialog on
    /// a busy machine showed it after the menu's closing was answered).
    pub(crate) fn before_input(&mut self, announces_window: bool) {
        self.watch.clear();
        self.announced = announces_window;
    }
}

/// Subscribes to `window`'s change events for an acting call (`None` where the backend
/// reports none); `dialog`: the window was a dialog when observed.
pub(crate) async fn subscribe(
    service: &Service,
    window: &WindowId,
    dialog: bool,
) -> Option<Events> {
    let watch = service.backend.watch(window).await.ok()?;
    Some(Events {
        proven: watch.proven(),
        watch,
        dialog,
        announced: false,
    })
}

/// The step's effect from the window's events; `None` if the watch cannot tell them apart
/// (the caller polls instead).
pub(crate) async fn watch(
    service: &Service,
    window: &WindowId,
    before: Option<&Fingerprint>,
    windows: Option<&WindowsBefore>,
    events: &mut Events,
) -> Option<Observed> {
    let started = Instant::now();
    if let Some(before) = before {
        events.dialog = before.dialog;
    }
    let mut heard = Heard::default();
    let mut settled = false;
    // When the settle round trip began and how long it took (for the log).
    let mut settle_at: Option<(f64, f64)> = None;
    let ms_since = |t: Instant| t.duration_since(started).as_secs_f64() * 1000.0;
    let observed = |effect, heard: &Heard, settle_at: Option<(f64, f64)>| {
        tracing::debug!(
            ?effect,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            first_ms = heard.first.map(ms_since),
            settle = ?settle_at,
            "effect seen in events"
        );
        Observed {
            effect,
            fingerprint: None,
            opened: None,
            app_exited: false,
        }
    };
    // The windows are listed every POLL and before any answer, not after every event (a
    // key in Calc brings hundreds).
    let mut dialog = events.dialog;
    let mut listed_at: Option<Instant> = None;
    // A dialog that changed gets half as long again to close.
    let limit_of = |dialog: bool, heard: &Heard| {
        if dialog && heard.first.is_some() {
            service.effect_wait * 3 / 2
        } else {
            service.effect_wait
        }
    };
    loop {
        let due = listed_at.is_none_or(|t| t.elapsed() >= POLL)
            || heard.answer(dialog || events.announced).is_some()
            || started.elapsed() >= limit_of(dialog, &heard);
        if due {
            listed_at = Some(Instant::now());
            let listed = service.backend.shown_windows().await.ok();
            let unlisted = listed
                .as_ref()
                .is_some_and(|all| all.iter().all(|w| &w.id != window));
            // Gone means no longer listed and unreadable (a window can drop out of a
            // listing for a moment while a dialog opens).
            if unlisted
                && matches!(crate::effect::fingerprint(service, window).await, Err(e) if e.code == ErrorCode::WindowNotFound)
            {
                let opened = windows
                    .zip(listed.as_ref())
                    .and_then(|(before, now)| before.opened(now));
                return Some(Observed {
                    effect: Effect::WindowClosed,
                    fingerprint: None,
                    opened,
                    app_exited: app_exited(service, windows, listed.as_deref()).await,
                });
            }
            if let Some(opened) = windows
                .zip(listed.as_ref())
                .and_then(|(before, now)| before.opened(now))
            {
                return Some(Observed {
                    opened: Some(opened),
                    ..observed(Effect::WindowOpened, &heard, settle_at)
                });
            }
            // GTK 4 gives a dialog's root no dialog role: a window of an app that has
            // another window is waited on like one.
            dialog = events.dialog
                || windows
                    .zip(listed.as_ref())
                    .is_some_and(|(before, all)| before.has_sibling(window, all));
        }
        let left = limit_of(dialog, &heard).saturating_sub(started.elapsed());
        // Like a dialog's, an announced window's step is answered at the end of the watch,
        // unless the window comes first.
        let answer = heard.answer(dialog || events.announced);
        if !settled && (answer.is_some() || left.is_zero()) {
            // The app may still be busy with the input (building a dialog whose window is
            // not listed yet: Mousepad's Save As blocks it for seconds): one round trip to
            // it, what it sent meanwhile, a new look at the windows.
            settled = true;
            let began = Instant::now();
            events.watch.settle(SETTLE).await;
            settle_at = Some((ms_since(began), began.elapsed().as_secs_f64() * 1000.0));
            // Once the window was seen to change, only a window on its way still matters.
            while let Ok(Some(seen)) = events.watch.seen_before_settle(heard.first.is_some()).await
            {
                heard.note(seen);
                events.proven = true;
            }
            continue;
        }
        if let Some(effect) = answer {
            return Some(observed(effect, &heard, settle_at));
        }
        if left.is_zero() {
            return Some(if heard.first.is_some() {
                observed(Effect::Changed, &heard, settle_at)
            } else if heard.focus.is_some() {
                observed(Effect::FocusMoved, &heard, settle_at)
            } else {
                no_event_seen(service, window, before, events.proven).await
            });
        }
        let wait = if heard.first.is_some() || heard.elsewhere.is_some() {
            EVENT_QUIET
        } else {
            POLL
        };
        // Once the window changed, only a window on its way still matters (placing each of
        // a busy app's events costs round trips to it: Calc's Tab took 100 ms of them).
        let next = if heard.first.is_some() {
            events.watch.seen_new_window(wait.min(left)).await
        } else {
            events.watch.seen(wait.min(left)).await
        };
        match next {
            Ok(Some(seen)) => {
                heard.note(seen);
                events.proven = true;
            }
            Ok(None) => {}
            Err(_) => return None,
        }
    }
}

/// A step after which the window sent no event: read once and compared with the baseline
/// (then the read is the next step's); without one, `no_change` if the app was seen to
/// send events in this call.
async fn no_event_seen(
    service: &Service,
    window: &WindowId,
    before: Option<&Fingerprint>,
    proven: bool,
) -> Observed {
    let (effect, fingerprint) = match before {
        Some(before) => match crate::effect::fingerprint(service, window).await {
            Ok(now) => (now.effect_since(before), Some(now)),
            Err(_) => (Effect::NotChecked, None),
        },
        None if proven => (Effect::NoChange, None),
        None => (Effect::NotChecked, None),
    };
    Observed {
        effect,
        fingerprint,
        opened: None,
        app_exited: false,
    }
}

/// What a step's events said so far.
#[derive(Debug, Default)]
struct Heard {
    /// When the window's first content event came (later ones are not told apart).
    first: Option<Instant>,
    /// When the focus last moved.
    focus: Option<Instant>,
    /// Another window of the app was created or activated: the listing will show it.
    new_window: bool,
    /// When the app last changed something outside the window.
    elsewhere: Option<Instant>,
}

impl Heard {
    fn note(&mut self, seen: Seen) {
        let now = Instant::now();
        match seen {
            Seen::Focus => self.focus = Some(now),
            Seen::NewWindow => self.new_window = true,
            Seen::Elsewhere => self.elsewhere = Some(now),
            _ => {
                self.first.get_or_insert(now);
            }
        }
    }

    /// The effect the events show by now, if they show one yet: none while the app is at work
    /// elsewhere or a new window is on its way (the listing says `window_opened` when it comes:
    /// Mousepad closes its menu, then builds its Save As dialog for 300 ms) and, in a dialog,
    /// none before the end of the watch.
    fn answer(&self, dialog: bool) -> Option<Effect> {
        let since = |t: Option<Instant>, d: Duration| t.is_some_and(|t| t.elapsed() >= d);
        let busy_elsewhere = self.elsewhere.is_some_and(|t| t.elapsed() < EVENT_QUIET);
        if self.new_window || busy_elsewhere {
            None
        } else if self.first.is_some() {
            (!dialog && since(self.first, EVENT_QUIET)).then_some(Effect::Changed)
        } else {
            since(self.focus, FOCUS_QUIET).then_some(Effect::FocusMoved)
        }
    }
}
