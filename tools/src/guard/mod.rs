//! The safety gate at the moment input is sent.
//!
//! Every input an acting tool sends to a window goes through a [`Sender`]; nothing else calls
//! the backend's `input` or `perform`. Right before each piece of input the sender asks the
//! backend what will really receive it and lets the gate judge that, live:
//!
//! - pointer presses (click, double and right click, both ends of a drag): the platform's hit
//!   test at the point ([`Backend::element_at`](cu_core::model::backend::Backend::element_at)); nothing
//!   found there asks for confirmation (fail closed);
//! - keyboard input: text is cut before and after every space, line break and tab
//!   ([`cu_core::policy::activation`]), and before each piece that can activate (a space on a control,
//!   Return, an access key, the Delete key, a letter in an open menu) the focused element is read
//!   live; a space typed into a text field is text, sent to a button it is a press;
//! - semantic actions: the element is read again and judged by the name the outline shows (its
//!   label child or icon when it has no name; its description only when nothing visible names it).
//!
//! What is judged is the consequence ([`cu_core::policy::consequence`]): a button that answers its dialog
//! ("Yes", "OK", the default button) is judged with the dialog's question, a Return that the
//! focused control does not keep is judged where it lands (the default button), and a control
//! that acts with nothing naming it is unknown, so it asks. A menu whose activation only shows
//! its items is not judged; its items are. The state of a
//! `gui_action` call is consumed right before its first input, after that input was judged, so a
//! call refused before acting leaves its state usable.

use std::time::{Duration, Instant};

use cu_core::model::backend::{FocusMove, FocusMoves, InputEvent, SemanticAction};
use cu_core::model::element::{ElementIdentity, SnapshotOptions};
use cu_core::model::receiver::Probe;
use cu_core::model::window::WindowId;
use cu_core::policy::activation::{self, Reach};
use cu_core::{model::keys, Error, ErrorCode, Result};

use crate::service::Service;

/// Sends one call's input, judging each piece live.
mod judge;

use judge::{same_as_approved, Approved, Verdict};

/// Sends one call's input, judging each piece live.
pub(crate) struct Sender<'s> {
    svc: &'s Service,
    window: WindowId,
    confirmed: bool,
    /// The tool, for approvals and refusals (`gui_action`, `click`, `type_text`).
    tool: &'static str,
    /// The step being sent and its kind (`click`, `type`).
    step: usize,
    kind: String,
    /// The state to consume right before the first input (`gui_action`).
    unconsumed: Option<String>,
    /// Whether any input was sent.
    sent: bool,
    /// Focus as last read; `None` when it must be read again.
    focus: Option<Result<Probe>>,
    /// Input was sent that may move focus, and the app may not have handled it yet.
    unsettled: Option<Unsettled>,
    /// Tabs and Returns went out from an editable cell of a sheet without focus being read
    /// after them, each seen moving the sheet's cursor (these moves, subscribed): a sheet moves
    /// its own cursor from cell to cell, so `focus` still holds the cell they left, which judges
    /// what is typed next the same way. Focus told elsewhere, a new step, or anything else that
    /// reads focus ends it, and focus is read again once the app shows where the moves ended.
    carried: Option<Box<dyn FocusMoves>>,
    /// The window was seen not to show the Desktop page since the last input that could change
    /// what it shows (a step, a focus move, a tab switch).
    not_the_page: bool,
    /// What a person (or the caller's confirmation) already let through in this call, so it is
    /// not asked twice: bound to the step, the rule and the receiver that was judged, so an
    /// approval of "Delete draft" does not pass a later piece that lands on "Delete account".
    approved: Vec<Approved>,
    /// Who approved, when a person did.
    approved_by: Option<String>,
    /// The window's fingerprint taken right before the call's first input (after the gate's
    /// probes), the baseline its first effect is compared with.
    baseline: Baseline,
}

/// The effect baseline of a call's first input.
enum Baseline {
    /// Not asked for.
    Off,
    /// To be taken right before the first input.
    Wanted,
    /// Taken (`None`: the window could not be read).
    Taken(Option<crate::effect::Fingerprint>),
}

impl<'s> Sender<'s> {
    /// A sender for `window`; `state_id` is consumed right before the first input.
    pub(super) fn new(
        svc: &'s Service,
        window: &WindowId,
        tool: &'static str,
        confirmed: bool,
        state_id: Option<&str>,
    ) -> Sender<'s> {
        Sender {
            svc,
            window: window.clone(),
            confirmed,
            tool,
            step: 0,
            kind: String::new(),
            unconsumed: state_id.map(str::to_owned),
            sent: false,
            focus: None,
            unsettled: None,
            carried: None,
            not_the_page: false,
            approved: Vec::new(),
            approved_by: None,
            baseline: Baseline::Off,
        }
    }

    /// The step the next input belongs to.
    pub(super) fn begin_step(&mut self, step: usize, kind: &str) {
        self.step = step;
        self.kind = kind.to_owned();
        self.not_the_page = false;
        if self.carried.take().is_some() {
            // A step reads where the sheet's cursor went (its moves may still settle).
            self.focus = None;
        }
    }

    /// Asks for the window's fingerprint right before the call's first input: the probes run
    /// between an earlier fingerprint and the input, and what changed meanwhile is not the
    /// input's effect.
    pub(super) fn want_baseline(&mut self) {
        self.baseline = Baseline::Wanted;
    }

    /// No baseline after all: the window's events answer a step without one.
    pub(super) fn skip_baseline(&mut self) {
        self.baseline = Baseline::Off;
    }

    /// The baseline, once it was taken (handed out once).
    pub(super) fn baseline(&mut self) -> Option<Option<crate::effect::Fingerprint>> {
        match std::mem::replace(&mut self.baseline, Baseline::Off) {
            Baseline::Taken(fingerprint) => Some(fingerprint),
            other => {
                self.baseline = other;
                None
            }
        }
    }

    async fn take_baseline(&mut self) {
        if matches!(self.baseline, Baseline::Wanted) {
            self.baseline = Baseline::Taken(
                crate::effect::fingerprint(self.svc, &self.window)
                    .await
                    .ok(),
            );
        }
    }

    /// Records that a person already approved `rule` for `step` on `receiver` (the element's
    /// name, or the label judged; before the call started).
    pub(super) fn preapproved(
        &mut self,
        step: usize,
        rule: &str,
        receiver: &str,
        by: Option<String>,
    ) {
        self.approved.push(Approved::new(step, rule, receiver));
        if by.is_some() {
            self.approved_by = by;
        }
    }

    /// True once any input went out (the state, if any, is consumed then).
    pub(super) fn sent_anything(&self) -> bool {
        self.sent
    }

    /// Who approved on the Desktop page, if a person did.
    pub(super) fn approved_by(&self) -> Option<&str> {
        self.approved_by.as_deref()
    }

    /// Sends through `deliver` after consuming the state; an error the backend raised before
    /// anything reached the app ([`Error::nothing_sent`]) gives the state back when this was the
    /// call's first input, so a refused call never uses it up.
    async fn deliver<F>(&mut self, deliver: F) -> Result<()>
    where
        F: std::future::Future<Output = Result<()>>,
    {
        let claimed = self.unconsumed.clone();
        let first = !self.sent;
        self.commit()?;
        self.sent = true;
        let done = deliver.await;
        if let Err(e) = &done {
            if e.nothing_sent && first {
                self.sent = false;
                if let Some(id) = claimed {
                    match self.svc.states.restore(&id) {
                        Ok(()) => self.unconsumed = Some(id),
                        Err(e) => tracing::warn!("the unused state stays used: {e}"),
                    }
                }
            }
        }
        done
    }

    /// Consumes the state of the call, if not yet done: after every check, before input.
    pub(super) fn commit(&mut self) -> Result<()> {
        if let Some(id) = self.unconsumed.take() {
            if let Err(e) = self.svc.states.consume(&id) {
                self.unconsumed = Some(id);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Pointer input: presses are judged by the hit test at each pressed point.
    pub(super) async fn pointer(&mut self, event: &InputEvent) -> Result<()> {
        // Every point where a button goes down or up is judged: a release over "Delete" after
        // a separate press on it clicks it.
        for at in event.pressed_points() {
            let probe = self.svc.backend.element_at(&self.window, at).await;
            if self.judge_hit(&probe, at).await? == Verdict::ApprovedByPerson {
                let again = self.svc.backend.element_at(&self.window, at).await;
                same_as_approved(&probe, &again)?;
            }
        }
        let before = self.known_focus();
        self.send(event).await?;
        if !matches!(
            event.unheld(),
            InputEvent::Move { .. } | InputEvent::Scroll { .. }
        ) {
            self.moved(before, false);
        }
        Ok(())
    }

    /// A key combination, judged by what it can reach.
    pub(crate) async fn key(&mut self, combo: &keys::Combo) -> Result<()> {
        let reach = activation::reach_of_combo(combo.keys());
        let tab = combo
            .keys()
            .contains(&keys::Key::Named(keys::NamedKey::Tab));
        self.send_piece(
            reach,
            (tab, moves_a_cursor(combo.keys())),
            &InputEvent::Key {
                combo: combo.clone(),
            },
            &combo.to_string(),
        )
        .await
    }

    /// Typed text, cut at every piece that can activate, each judged before it is sent.
    pub(super) async fn text(&mut self, text: &str) -> Result<()> {
        // What can be judged before anything goes out is judged first, with focus as it is
        // now: every piece up to the first that moves it. A space refused after the first word
        // was typed used up the call's state and left a half-typed text (cua-auto-harness on a
        // window without a tree: "hello" of "hello world", then STATE_ALREADY_USED).
        for (piece, reach) in activation::split_text(text) {
            self.judge_keyboard(reach, piece).await?;
            if reach.may_move_focus() && !self.focus_takes(reach) {
                break;
            }
        }
        for (piece, reach) in activation::split_text(text) {
            let event = InputEvent::Text {
                text: piece.to_owned(),
            };
            let tab = piece == "\t";
            self.send_piece(reach, (tab, tab || reach == Reach::Enter), &event, piece)
                .await?;
        }
        Ok(())
    }

    /// Judges one keyboard piece, sends it, and notes when focus may move.
    /// `(tab, cursor)`: the piece holds a Tab; it is a plain Tab or Return (shift allowed),
    /// which moves a sheet's cursor.
    async fn send_piece(
        &mut self,
        reach: Reach,
        (tab, cursor): (bool, bool),
        event: &InputEvent,
        what: &str,
    ) -> Result<()> {
        // A dialog the keys before opened (its focus told) ends the carry: focus is read.
        self.still_in_sheet().await;
        self.judge_keyboard(reach, what).await?;
        let stays = self.focus_takes(reach);
        // A Tab or Return typed after text into a sheet's cell commits it and moves the sheet's
        // cursor: what follows goes to the next cell, judged as the cell left (see `carried`).
        // Reading focus after every move waited for the app each time (60-80 ms a cell in Calc).
        let carries =
            cursor && matches!(&self.focus, Some(Ok(focus)) if focus.carries_through_moves());
        if tab && !carries {
            // Where focus was, so its move can be seen.
            let _ = self.focus().await;
        }
        let before = self.known_focus();
        // Subscribed before the key goes out, so its move is not missed.
        let was_carried = self.carried.is_some();
        let mut moves = match carries {
            true if was_carried => self.carried.take(),
            true => self.svc.backend.focus_moves(&self.window).await.ok(),
            // Letters and spaces typed on in the next cell keep the carry.
            false => None,
        };
        self.send(event).await?;
        // Paced by the sheet: what follows waits until it moved its cursor (typed on at once,
        // Calc took the next letters into the cell it had not left yet: "15Desk"), and by then
        // a dialog the keys before it opened is there to be seen. A sheet not seen moving
        // within the bound, or focus told elsewhere, has its focus read again.
        let seen = match moves.as_mut() {
            Some(moves) => moves.moved(SHEET_MOVES).await,
            None => FocusMove::Nothing,
        };
        if carries && seen == FocusMove::Cursor {
            // Settled, when focus is read, from where the first carried move started.
            let before = match self.unsettled.take() {
                Some(u) if was_carried => u.before,
                _ => before,
            };
            self.carried = moves;
            self.unsettled = Some(Unsettled {
                before,
                must_move: false,
                sent: Instant::now(),
            });
        } else if carries {
            self.moved(before, false);
        } else if reach.may_move_focus() && !stays {
            self.moved(before, tab);
        } else if !(matches!(reach, Reach::Chars | Reach::Space) && self.focus_keeps_typing()) {
            // Text can move focus too, without the app showing a move to wait for: a letter
            // typed on LibreOffice Calc's sheet focuses the paragraph of the cell it starts
            // editing. The next activating piece reads focus afresh, unless the receiver keeps
            // what follows (an editable cell: its editor commits and moves as the cell does;
            // the read waited 25-40 ms for Calc to handle the letters, every cell).
            self.focus = None;
        }
        Ok(())
    }

    /// Ends the carry through a sheet when its application told focus went elsewhere since the
    /// last move (a message box the typed keys opened): the next piece is judged where focus is.
    async fn still_in_sheet(&mut self) {
        let Some(moves) = self.carried.as_mut() else {
            return;
        };
        for _ in 0..MAX_TOLD {
            match moves.moved(Duration::ZERO).await {
                FocusMove::Nothing => return,
                FocusMove::Elsewhere => break,
                _ => {}
            }
        }
        self.carried = None;
        self.focus = None;
    }

    /// Whether keyboard focus, read once the app shows its move, is on `element` or inside
    /// it (a combo box's entry); `false` when it went elsewhere or cannot be read.
    /// Apps move focus asynchronously (Firefox after a focus request): it is read again until
    /// it is there, for [`FOCUS_LANDS`] at most.
    pub(super) async fn focus_lands_in(&mut self, element: &ElementIdentity) -> bool {
        let deadline = Instant::now() + FOCUS_LANDS;
        loop {
            if self.focus_is_in(element).await {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(POLL).await;
            self.focus = None;
        }
    }

    async fn focus_is_in(&mut self, element: &ElementIdentity) -> bool {
        let receiver = match self.focus().await {
            Ok(probe) => probe.receiver().map(|n| n.identity.clone()),
            Err(_) => None,
        };
        if receiver.as_ref() == Some(element) {
            return true;
        }
        // A sheet's cell says it is focused while the sheet holds the keyboard for it (the
        // focus read names the sheet when no event named the cell yet).
        let says = self.svc.element_now(&self.window, element).await;
        if says.is_some_and(|n| n.states.contains(cu_core::model::node::State::Focused)) {
            return true;
        }
        let Some(receiver) = receiver else {
            return false;
        };
        self.svc
            .backend
            .ancestors(&self.window, &receiver)
            .await
            .is_ok_and(|chain| chain.iter().any(|n| &n.identity == element))
    }

    /// The receiver of the focus as last read, if known.
    fn known_focus(&self) -> Option<Option<ElementIdentity>> {
        match &self.focus {
            Some(Ok(p)) => Some(p.receiver().map(|n| n.identity.clone())),
            _ => None,
        }
    }

    /// Input that may move focus went out: focus is read again, once the app shows the move.
    fn moved(&mut self, before: Option<Option<ElementIdentity>>, must_move: bool) {
        self.focus = None;
        self.carried = None;
        self.not_the_page = false;
        self.unsettled = Some(Unsettled {
            before,
            must_move,
            sent: Instant::now(),
        });
    }

    /// Judges `text` as it will land once `element` has focus, before focusing it: focusing is
    /// input too, and a refusal must come before any. Each piece is judged again when sent.
    pub(super) async fn prejudge_text(
        &mut self,
        element: &ElementIdentity,
        text: &str,
    ) -> Result<()> {
        let target = self.element_now(element).await?;
        self.focus = Some(Ok(target));
        for (piece, reach) in activation::split_text(text) {
            self.judge_keyboard(reach, piece).await?;
            if reach.may_move_focus() && !self.focus_takes(reach) {
                break;
            }
        }
        self.focus = None;
        Ok(())
    }

    /// A semantic action on an element, judged by the element as it is now. Focusing is
    /// noted as a focus move.
    pub(super) async fn perform(
        &mut self,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()> {
        let activates = !matches!(
            action,
            SemanticAction::Focus | SemanticAction::ScrollIntoView | SemanticAction::Expand { .. }
        );
        if activates {
            let probe = self.element_now(element).await?;
            if self.judge(&probe, None).await? == Verdict::ApprovedByPerson {
                let again = self.element_now(element).await?;
                same_as_approved(&Ok(probe), &Ok(again))?;
            }
        }
        self.not_the_desktop_page().await?;
        self.take_baseline().await;
        let before = self.known_focus();
        let svc = self.svc;
        let window = self.window.clone();
        let done = self
            .deliver(svc.backend.perform(&window, element, action))
            .await;
        self.moved(before, false);
        done
    }

    /// Refuses to operate a window that shows the Desktop page (read live: a browser's title is
    /// its active tab's), again after every input that could change what it shows.
    async fn not_the_desktop_page(&mut self) -> Result<()> {
        if self.not_the_page {
            return Ok(());
        }
        if self
            .svc
            .title_of(&self.window)
            .await
            .contains(DESKTOP_PAGE_TITLE)
        {
            return Err(Error::new(
                ErrorCode::Unauthorized,
                "this window shows the Desktop page of mcp-computer-use, where people approve what the safety gate held back; the tools never operate it",
            )
            .with_suggestion("Ask the person to decide on the page themselves."));
        }
        self.not_the_page = true;
        Ok(())
    }

    async fn send(&mut self, event: &InputEvent) -> Result<()> {
        self.not_the_desktop_page().await?;
        if !self.sent {
            // A window that cannot come to the front (a modal dialog blocks it: WINDOW_BLOCKED)
            // refuses before the call's state is used up, and so do keys for a window that does
            // not hold the keyboard (Wayland sends them wherever focus is). A pointer event
            // brings its window forward itself.
            let keys = matches!(event, InputEvent::Key { .. } | InputEvent::Text { .. });
            match self.svc.backend.activate(&self.window).await {
                Err(e) if e.code == ErrorCode::ActionNotSupported => {}
                Err(e) if e.code == ErrorCode::WindowNotFocused && !keys => {}
                Err(e) => return Err(e),
                Ok(()) => {}
            }
        }
        self.take_baseline().await;
        let svc = self.svc;
        let window = self.window.clone();
        self.deliver(svc.backend.input(&window, event)).await
    }

    /// The element with its labels, read now; `ELEMENT_NOT_FOUND` when it is gone, `TIMEOUT`
    /// when its application stays silent.
    async fn element_now(&self, element: &ElementIdentity) -> Result<Probe> {
        let options = SnapshotOptions {
            subtree: Some(element.clone()),
            max_depth: Some(cu_core::model::receiver::INNER_LABEL_DEPTH),
            max_nodes: 64,
            time_budget_ms: 1000,
            // A label's words may sit in its text alone (GTK 4, Firefox).
            read_text: true,
            read_cells: true,
            // The gate reads what will receive the input now.
            reuse: false,
        };
        let subtree = self
            .svc
            .read_for_action(&self.window, &options)
            .await
            .map_err(|e| {
                let message = format!(
                    "the element could not be read again before acting: {}",
                    e.message
                );
                // A busy app keeps its retryable code; anything else means the element is
                // not there to be judged.
                if e.code == ErrorCode::Timeout {
                    return Error::new(ErrorCode::Timeout, message).with_suggestion(
                        "The application is busy: call again in a moment; nothing was done.",
                    );
                }
                Error::new(ErrorCode::ElementNotFound, message)
                    .with_suggestion("Observe the window again with gui_state.")
            })?;
        Ok(Probe::from_subtree(&subtree))
    }

    /// Whether the current focus keeps the keys typed after characters (see
    /// [`Probe::keeps_typed_focus`], [`Probe::carries_through_moves`]).
    fn focus_keeps_typing(&self) -> bool {
        matches!(&self.focus, Some(Ok(focus)) if focus.keeps_typed_focus() || focus.carries_through_moves())
    }

    /// Whether the current focus takes `reach` as text (so no focus move is waited for).
    fn focus_takes(&self, reach: Reach) -> bool {
        let Some(Ok(focus)) = &self.focus else {
            return false;
        };
        match reach {
            Reach::Chars => true,
            Reach::Space => focus.takes_text(),
            Reach::Enter => focus.takes_line_breaks(),
            _ => false,
        }
    }

    /// The focused element now. After input that may move focus, the app handles it
    /// asynchronously: focus is read until it moved from where it was and reads the same twice,
    /// within [`SETTLE`]. After a Tab that did not visibly move focus within that time, focus
    /// counts as unknown (so the next activating piece needs confirmation). Tabs and Returns
    /// carried through a sheet were each seen moving its cursor: their read only settles.
    async fn focus(&mut self) -> &Result<Probe> {
        if self.carried.take().is_some() {
            // Where the sheet's cursor ended, read once the app shows its moves.
            self.focus = None;
        }
        if self.focus.is_none() {
            let started = Instant::now();
            let settling = self.unsettled.is_some();
            let read = match self.unsettled.take() {
                Some(u) => self.settled_focus(u).await,
                None => self.svc.backend.focused(&self.window).await,
            };
            tracing::debug!(
                settling,
                ms = started.elapsed().as_secs_f64() * 1000.0,
                "focus read"
            );
            self.focus = Some(read);
        }
        self.focus.get_or_insert_with(|| Ok(Probe::nothing()))
    }

    async fn settled_focus(&self, u: Unsettled) -> Result<Probe> {
        let settle = SETTLE.min(self.svc.effect_wait);
        let deadline = u.sent + settle;
        let receiver = |p: &Result<Probe>| match p {
            Ok(p) => Some(p.receiver().map(|n| n.identity.clone())),
            Err(_) => None,
        };
        let mut last = self.svc.backend.focused(&self.window).await;
        loop {
            let now = receiver(&last);
            let moved = match (&u.before, &now) {
                (Some(before), Some(now)) => before != now,
                _ => true,
            };
            if moved {
                tokio::time::sleep(POLL).await;
                let again = self.svc.backend.focused(&self.window).await;
                if receiver(&again) == now {
                    return again;
                }
                last = again;
                continue;
            }
            if Instant::now() >= deadline {
                return if u.must_move {
                    Err(Error::new(
                        ErrorCode::Timeout,
                        format!(
                            "focus did not visibly move within {} ms of a Tab",
                            settle.as_millis()
                        ),
                    ))
                } else {
                    last
                };
            }
            tokio::time::sleep(POLL).await;
            last = self.svc.backend.focused(&self.window).await;
        }
    }
}

/// A plain Tab or Return, shift allowed: what moves a sheet's cursor from cell to cell (any
/// other modifier may do something else: alt+Tab leaves the window).
fn moves_a_cursor(keys: &[keys::Key]) -> bool {
    use keys::{Key, NamedKey};
    let (held, rest): (Vec<&Key>, Vec<&Key>) = keys
        .iter()
        .partition(|k| matches!(k, Key::Named(n) if n.is_modifier()));
    held.iter()
        .all(|k| matches!(k, Key::Named(NamedKey::Shift | NamedKey::ShiftRight)))
        && matches!(
            rest.as_slice(),
            [Key::Named(
                NamedKey::Tab | NamedKey::Return | NamedKey::KpEnter
            )]
        )
}

/// Input that may have moved focus, not yet seen handled.
struct Unsettled {
    /// The focused receiver before it (`None`: not known).
    before: Option<Option<ElementIdentity>>,
    /// A Tab: focus must be seen to move, else it counts as unknown.
    must_move: bool,
    sent: Instant,
}

/// How long the app gets to show that it handled input which may move focus (at most the
/// service's effect wait).
const SETTLE: Duration = Duration::from_millis(700);
/// How long a sheet is given to move its cursor after a Tab or Return before typing goes on.
const SHEET_MOVES: Duration = Duration::from_millis(300);
/// Moves told since the last one waited for that are looked at, at most, before a piece.
const MAX_TOLD: usize = 64;
/// Between two reads of focus while it settles.
const POLL: Duration = Duration::from_millis(15);
/// How long a focus request is given to land before the next way is tried.
const FOCUS_LANDS: Duration = Duration::from_millis(1000);

/// The Desktop page's title (`webui/src/assets/index.html`): a window showing it is the page
/// where a person approves what the gate held back, and the tools never operate it, so a model
/// cannot approve its own action by driving a browser that shows the page.
pub const DESKTOP_PAGE_TITLE: &str = "mcp-computer-use · Desktop";

/// The rule named when the gate cannot tell what would receive an input.
pub(super) const UNKNOWN_RECEIVER: &str = "unknown receiver";

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(combo: &str) -> Vec<keys::Key> {
        match combo.parse::<keys::Combo>() {
            Ok(c) => c.keys().to_vec(),
            Err(e) => panic!("{combo}: {e:?}"),
        }
    }

    /// A review of the sheet's carried focus: alt+Tab leaves the window, ctrl+Return does
    /// something else than moving to the next cell; only a plain Tab or Return moves a cursor.
    #[test]
    fn only_a_plain_tab_or_return_moves_a_sheets_cursor() {
        for yes in ["Tab", "shift+Tab", "Return", "shift+Return", "KP_Enter"] {
            assert!(moves_a_cursor(&keys_of(yes)), "{yes}");
        }
        for no in [
            "alt+Tab",
            "ctrl+Tab",
            "ctrl+Return",
            "super+Tab",
            "a",
            "Down",
            "ctrl+shift+Tab",
        ] {
            assert!(!moves_a_cursor(&keys_of(no)), "{no}");
        }
    }
}
