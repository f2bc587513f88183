//! The safety gate at the moment input is sent.
//!
//! Every input an acting tool sends to a window goes through a [`Sender`]; nothing else calls
//! the backend's `input` or `perform`. Right before each piece of input the sender asks the
//! backend what will really receive it and lets the gate judge that, live:
//!
//! - pointer presses (click, double and right click, both ends of a drag): the platform's hit
//!   test at the point ([`Backend::element_at`](cu_core::backend::Backend::element_at)); nothing
//!   found there asks for confirmation (fail closed);
//! - keyboard input: text is cut before and after every space, line break and tab
//!   ([`cu_core::activation`]), and before each piece that can activate (a space on a control,
//!   Return, an access key, the Delete key, a letter in an open menu) the focused element is read
//!   live; a space typed into a text field is text, sent to a button it is a press;
//! - semantic actions: the element is read again and judged by the name the outline shows (its
//!   label child or icon when it has no name; its description only when nothing visible names it).
//!
//! What is judged is the consequence ([`cu_core::consequence`]): a button that answers its dialog
//! ("Yes", "OK", the default button) is judged with the dialog's question, a Return that the
//! focused control does not keep is judged where it lands (the default button), and a control
//! that acts with nothing naming it is unknown, so it asks. A menu whose activation only shows
//! its items is not judged; its items are. The state of a
//! `gui_action` call is consumed right before its first input, after that input was judged, so a
//! call refused before acting leaves its state usable.

use std::time::{Duration, Instant};

use cu_core::activation::{self, Reach};
use cu_core::approvals::Target;
use cu_core::audit::AuditRecord;
use cu_core::backend::{InputEvent, SemanticAction};
use cu_core::consequence;
use cu_core::element::{ElementIdentity, SnapshotOptions, State};
use cu_core::geometry::Point;
use cu_core::receiver::{opens_menu_only, Probe};
use cu_core::safety::Decision;
use cu_core::window::WindowId;
use cu_core::{keys, Error, ErrorCode, Result};

use super::approval::{Blocked, Reason};
use crate::service::Service;

/// Sends one call's input, judging each piece live.
pub(super) struct Sender<'s> {
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

/// Whether a judged piece may go, and who said so.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Nothing blocked, or the caller confirmed.
    Go,
    /// A person approved it on the Desktop page: read it again before sending.
    ApprovedByPerson,
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
        let pressed: Vec<Point> = match event {
            InputEvent::Click { at, .. } => vec![*at],
            InputEvent::Drag { from, to, .. } => vec![*from, *to],
            _ => Vec::new(),
        };
        for at in pressed {
            let probe = self.svc.backend.element_at(&self.window, at).await;
            if self.judge_hit(&probe, at).await? == Verdict::ApprovedByPerson {
                let again = self.svc.backend.element_at(&self.window, at).await;
                same_as_approved(&probe, &again)?;
            }
        }
        let before = self.known_focus();
        self.send(event).await?;
        if !matches!(event, InputEvent::Move { .. } | InputEvent::Scroll { .. }) {
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
            tab,
            &InputEvent::Key {
                combo: combo.clone(),
            },
            &combo.to_string(),
        )
        .await
    }

    /// Typed text, cut at every piece that can activate, each judged before it is sent.
    pub(super) async fn text(&mut self, text: &str) -> Result<()> {
        for (piece, reach) in activation::split_text(text) {
            let event = InputEvent::Text {
                text: piece.to_owned(),
            };
            self.send_piece(reach, piece == "\t", &event, piece).await?;
        }
        Ok(())
    }

    /// Judges one keyboard piece, sends it, and notes when focus may move.
    async fn send_piece(
        &mut self,
        reach: Reach,
        tab: bool,
        event: &InputEvent,
        what: &str,
    ) -> Result<()> {
        self.judge_keyboard(reach, what).await?;
        let stays = self.focus_takes(reach);
        if tab {
            // Where focus was, so its move can be seen.
            let _ = self.focus().await;
        }
        let before = self.known_focus();
        self.send(event).await?;
        if reach.may_move_focus() && !stays {
            self.moved(before, tab);
        } else {
            // Text can move focus too, without the app showing a move to wait for: a letter
            // typed on LibreOffice Calc's sheet focuses the paragraph of the cell it starts
            // editing. The next activating piece reads focus afresh.
            self.focus = None;
        }
        Ok(())
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
        self.commit()?;
        self.sent = true;
        let before = self.known_focus();
        let done = self
            .svc
            .backend
            .perform(&self.window, element, action)
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
        self.commit()?;
        self.sent = true;
        self.svc.backend.input(&self.window, event).await
    }

    /// The element with its labels, read now; `ELEMENT_NOT_FOUND` when it is gone.
    async fn element_now(&self, element: &ElementIdentity) -> Result<Probe> {
        let options = SnapshotOptions {
            subtree: Some(element.clone()),
            max_depth: Some(cu_core::receiver::INNER_LABEL_DEPTH),
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
            .backend
            .snapshot(&self.window, &options)
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::ElementNotFound,
                    format!(
                        "the element could not be read again before acting: {}",
                        e.message
                    ),
                )
                .with_suggestion("Observe the window again with gui_state.")
            })?;
        Ok(Probe::from_subtree(&subtree))
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
    /// counts as unknown (so the next activating piece needs confirmation).
    async fn focus(&mut self) -> &Result<Probe> {
        if self.focus.is_none() {
            let read = match self.unsettled.take() {
                Some(u) => self.settled_focus(u).await,
                None => self.svc.backend.focused(&self.window).await,
            };
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

    async fn judge_keyboard(&mut self, reach: Reach, what: &str) -> Result<()> {
        let focus = match reach {
            Reach::MovesFocus | Reach::Other => return Ok(()),
            Reach::AccessKey => return self.judge_access_keys(what).await,
            _ => self.focus().await.clone(),
        };
        let focus = match focus {
            Ok(f) => f,
            // Letters do not activate where focus cannot be read; the rest fails closed.
            Err(_) if reach == Reach::Chars => return Ok(()),
            Err(e) => {
                return self
                    .unknown_receiver(&format!(
                        "the focused element (it could not be read: {})",
                        e.message
                    ))
                    .await
            }
        };
        match reach {
            Reach::Chars if focus.in_menu() => self.judge_menu_keys(&focus, what).await,
            Reach::Chars => Ok(()),
            Reach::Space if focus.takes_text() => Ok(()),
            Reach::Space => self.judge(&focus, None).await.map(|_| ()),
            Reach::Enter => {
                self.judge(&focus, None).await?;
                if !focus.receiver().is_some_and(consequence::return_stays) {
                    // Return that the focused control does not keep (nothing focused, a
                    // single-line field, a check box) is handed to the dialog's default button.
                    self.judge_return_lands(&focus).await?;
                }
                Ok(())
            }
            Reach::DeleteKey if focus.takes_text() || focus.is_empty() => Ok(()),
            Reach::DeleteKey => {
                let label = format!("the Delete key on {:?}", focus.shown_name());
                match self.svc.gate().check("Delete") {
                    Decision::NeedsConfirmation { matched_rule, .. } => self
                        .block(
                            label,
                            matched_rule,
                            shown_target(&focus),
                            None,
                            Reason::BlockedWord,
                        )
                        .await
                        .map(|_| ()),
                    Decision::Allowed => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// An access key (`alt+d`, or a letter in an open menu) presses the control that carries it,
    /// wherever it is: judged against every control the window shows now.
    async fn judge_access_keys(&mut self, what: &str) -> Result<()> {
        let Some(snapshot) = self
            .window_now(&format!("the control {what:?} presses"))
            .await?
        else {
            return Ok(());
        };
        let shown = |node: &cu_core::element::Node| {
            node.bounds.is_some_and(|b| !b.is_empty())
                && !node.states.contains(State::Offscreen)
                && node.role.is_interactive()
        };
        self.judge_pressable(&snapshot, 0, &shown, what, "an access key")
            .await
    }

    /// A letter in an open menu presses the item that carries it: judged against the items of the
    /// menu that holds focus (a popup is a window of its own, outside the window's snapshot: a
    /// Qt context menu's "&Delete" was pressed by "d"); a menu showing no items, against every
    /// control of the window as well. A menu that cannot be read is unknown, and asks.
    async fn judge_menu_keys(&mut self, focus: &Probe, what: &str) -> Result<()> {
        let Some(menu) = focus
            .path
            .iter()
            .rev()
            .find(|n| n.role == cu_core::role::Role::Menu)
        else {
            return self.judge_access_keys(what).await;
        };
        let options = SnapshotOptions {
            subtree: Some(menu.identity.clone()),
            max_depth: Some(2 + cu_core::receiver::INNER_LABEL_DEPTH),
            max_nodes: 400,
            time_budget_ms: 1000,
            read_text: false,
            read_cells: false,
            reuse: false,
        };
        let items = match self.svc.backend.snapshot(&self.window, &options).await {
            Ok(s) => s,
            Err(e) => {
                return self
                    .unknown_receiver(&format!(
                        "the items of the open menu {what:?} may press (the menu could not be read: {})",
                        e.message
                    ))
                    .await
            }
        };
        let item = |node: &cu_core::element::Node| {
            node.role.is_interactive() || node.role == cu_core::role::Role::Menu
        };
        self.judge_pressable(&items, 1, &item, what, "an item of the open menu")
            .await?;
        if items.nodes.iter().skip(1).any(item) {
            // An open menu holds the keyboard: a letter none of its items carries does nothing,
            // and the window's own mnemonics are out of reach until it closes (LibreOffice's
            // View menu is not judged by a toolbar's "Delete Decimal Place").
            return Ok(());
        }
        // A menu showing no items (a menu bar's entry, highlighted but closed): its letters may
        // reach the window's other controls.
        self.judge_access_keys(what).await
    }

    /// Judges every enabled control of `snapshot` (from node `from` on) that `candidate` takes
    /// and that a key can press: one that only opens a menu, or that nothing names (it carries
    /// no letter), is left out. The first that needs confirmation goes to the policy.
    async fn judge_pressable(
        &mut self,
        snapshot: &cu_core::element::Snapshot,
        from: usize,
        candidate: &(dyn Fn(&cu_core::element::Node) -> bool + Sync),
        what: &str,
        how: &str,
    ) -> Result<()> {
        for (i, node) in snapshot.nodes.iter().enumerate().skip(from) {
            if node.states.contains(State::Disabled) || !candidate(node) || opens_menu_only(node) {
                continue;
            }
            let probe = Probe::from_node(snapshot, i);
            tracing::trace!(name = %probe.shown_name(), role = ?node.role, "judging a control a key may press");
            let verdict = match consequence::judge(&self.svc.gate(), &probe, Some(snapshot)) {
                consequence::Verdict::Unlabeled { .. } | consequence::Verdict::Allowed => continue,
                v => v,
            };
            let context = format!("{what:?} may press {:?} ({how})", probe.shown_name());
            self.block_verdict(verdict, &probe, None, Some(context))
                .await?;
            return Ok(());
        }
        Ok(())
    }

    /// The buttons a Return lands on when the focused control does not keep it (the default
    /// button, or every button of a dialog without one), each judged with its dialog.
    async fn judge_return_lands(&mut self, focus: &Probe) -> Result<()> {
        let Some(snapshot) = self.window_now("the button Return lands on").await? else {
            return Ok(());
        };
        let at = focus
            .receiver()
            .and_then(|n| consequence::find(&snapshot, &n.identity));
        for i in consequence::return_lands(&snapshot, at) {
            let mut probe = Probe::from_node(&snapshot, i);
            if probe.acts_unlabeled() {
                // The window is read without texts: a button's label may sit in its text alone.
                if let Some(read) = snapshot.nodes.get(i) {
                    probe = self.element_now(&read.identity).await.unwrap_or(probe);
                }
            }
            let read = match probe.receiver() {
                Some(r) if consequence::needs_window(&probe) => {
                    Some(self.question_read(snapshot.clone(), &r.identity).await)
                }
                _ => None,
            };
            let verdict =
                consequence::judge(&self.svc.gate(), &probe, read.as_ref().or(Some(&snapshot)));
            if verdict != consequence::Verdict::Allowed {
                let context = format!("Return lands on {:?}", probe.shown_name());
                self.block_verdict(verdict, &probe, None, Some(context))
                    .await?;
            }
        }
        Ok(())
    }

    /// The dialog `receiver` sits in, read with its texts, found from the receiver's ancestors
    /// (cheap: no read of the whole window): the nearest dialog, else the nearest named pane
    /// (Firefox's prompt: its buttons' parents never reach a dialog).
    async fn dialog_of(&self, receiver: &ElementIdentity) -> Asked {
        let Ok(chain) = self.svc.backend.ancestors(&self.window, receiver).await else {
            return Asked::Unknown;
        };
        let found = chain
            .iter()
            .rev()
            .find(|n| consequence::is_dialog(n))
            .or_else(|| {
                chain
                    .iter()
                    .skip(1)
                    .rev()
                    .find(|n| consequence::is_named_pane(n))
            });
        let Some(dialog) = found else {
            return Asked::NoDialog;
        };
        let options = question_options(&dialog.identity);
        match self.svc.backend.snapshot(&self.window, &options).await {
            Ok(read) if consequence::find(&read, receiver).is_some() => Asked::Dialog(read),
            _ => Asked::Unknown,
        }
    }

    /// The dialog `receiver` answers, read again with its texts (the window is read without
    /// them, and Firefox's labels carry their text only there); the window itself when the
    /// receiver sits in no dialog or the dialog cannot be read.
    async fn question_read(
        &self,
        window: cu_core::element::Snapshot,
        receiver: &ElementIdentity,
    ) -> cu_core::element::Snapshot {
        let Some(dialog) = consequence::dialog_of(&window, consequence::find(&window, receiver))
            .and_then(|d| window.nodes.get(d))
        else {
            return window;
        };
        let options = question_options(&dialog.identity);
        let read = self.svc.backend.snapshot(&self.window, &options).await;
        match read {
            Ok(read) if consequence::find(&read, receiver).is_some() => read,
            _ => window,
        }
    }

    /// The window as it is now, to judge controls anywhere in it; `None` when it could not be
    /// read and the caller confirmed going ahead anyway (else the refusal).
    async fn window_now(&mut self, what: &str) -> Result<Option<cu_core::element::Snapshot>> {
        // A cell is never a default button nor carries an access key.
        let options = SnapshotOptions {
            time_budget_ms: 1500,
            read_text: false,
            read_cells: false,
            ..SnapshotOptions::default()
        };
        match self.svc.backend.snapshot(&self.window, &options).await {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                self.unknown_receiver(&format!(
                    "{what} (the window could not be read: {})",
                    e.message
                ))
                .await?;
                Ok(None)
            }
        }
    }

    async fn judge_hit(&mut self, probe: &Result<Probe>, at: Point) -> Result<Verdict> {
        match probe {
            Ok(p) if !p.is_empty() => self.judge(p, Some(at)).await,
            Ok(_) => {
                self.unknown_receiver(&format!(
                    "the point ({}, {}): no element is there",
                    at.x, at.y
                ))
                .await?;
                Ok(Verdict::Go)
            }
            Err(e) => {
                self.unknown_receiver(&format!(
                    "the point ({}, {}): the element there could not be found ({})",
                    at.x, at.y, e.message
                ))
                .await?;
                Ok(Verdict::Go)
            }
        }
    }

    /// Judges what a probe found ([`consequence::judge`]): its labels, an unnamed control that
    /// acts, and for a button that answers its dialog, the dialog's question (read now).
    async fn judge(&mut self, probe: &Probe, point: Option<Point>) -> Result<Verdict> {
        let window = match probe.receiver() {
            Some(receiver) if consequence::needs_window(probe) => {
                match self.dialog_of(&receiver.identity).await {
                    Asked::Dialog(dialog) => Some(dialog),
                    Asked::NoDialog => None,
                    Asked::Unknown => {
                        let what = format!("the dialog {:?} answers", probe.shown_name());
                        match self.window_now(&what).await? {
                            Some(w) => Some(self.question_read(w, &receiver.identity).await),
                            None => return Ok(Verdict::Go),
                        }
                    }
                }
            }
            _ => None,
        };
        let verdict = consequence::judge(&self.svc.gate(), probe, window.as_ref());
        tracing::debug!(
            receiver = ?probe.receiver().map(|n| (n.role, &n.name)),
            dialog_read = window.as_ref().map(|w| w.nodes.len()),
            ?verdict,
            "judged"
        );
        self.block_verdict(verdict, probe, point, None).await
    }

    /// Hands what the gate said to the approval policy (an allowed verdict goes).
    async fn block_verdict(
        &mut self,
        verdict: consequence::Verdict,
        probe: &Probe,
        point: Option<Point>,
        context: Option<String>,
    ) -> Result<Verdict> {
        let with_context = |label: String| match &context {
            Some(c) => format!("{c}: {label}"),
            None => label,
        };
        let (label, rule, reason) = match verdict {
            consequence::Verdict::Allowed => return Ok(Verdict::Go),
            consequence::Verdict::Word { label, rule } => (label, rule, Reason::BlockedWord),
            consequence::Verdict::Answers {
                label,
                question,
                rule,
            } => (
                format!("{label:?} answers the dialog {question:?}"),
                rule,
                Reason::AnswersDialog,
            ),
            consequence::Verdict::Unlabeled { role } => (
                format!("an unnamed {role} (no name, label, icon name or description says what it does)"),
                UNKNOWN_RECEIVER.to_owned(),
                Reason::UnknownReceiver,
            ),
            _ => (
                "an activation".to_owned(),
                UNKNOWN_RECEIVER.to_owned(),
                Reason::UnknownReceiver,
            ),
        };
        self.block(
            with_context(label),
            rule,
            shown_target(probe),
            point,
            reason,
        )
        .await
    }

    /// Nothing can be said about the receiver: fail closed.
    async fn unknown_receiver(&mut self, what: &str) -> Result<()> {
        self.block(
            what.to_owned(),
            UNKNOWN_RECEIVER.to_owned(),
            None,
            None,
            Reason::UnknownReceiver,
        )
        .await
        .map(|_| ())
    }

    /// Hands a stopped piece to the approval policy.
    async fn block(
        &mut self,
        label: String,
        matched_rule: String,
        target: Option<Target>,
        point: Option<Point>,
        reason: Reason,
    ) -> Result<Verdict> {
        let receiver = target.as_ref().map_or(label.as_str(), |t| t.name.as_str());
        let key = Approved::new(self.step, &matched_rule, receiver);
        if self.approved.contains(&key) {
            return Ok(Verdict::Go);
        }
        let audited = AuditRecord {
            action: Some(format!("{}.{}", self.tool, self.kind)),
            window: Some(self.window.0.clone()),
            name: target.as_ref().map(|t| t.name.clone()),
            role: target.as_ref().map(|t| t.role.as_str().to_owned()),
            point,
            confirmed: Some(self.confirmed),
            hint: Some(format!(
                "gate: {label:?} matched {matched_rule:?}, let through"
            )),
            ..AuditRecord::default()
        };
        let blocked = Blocked {
            step: self.step,
            action: format!("{}.{}", self.tool, self.kind),
            label,
            matched_rule: matched_rule.clone(),
            target,
            point,
            element_id: None,
            reason,
            after_input: self.sent,
        };
        let title = self.svc.title_of(&self.window).await;
        let by = crate::approval::settle_blocked(
            self.svc,
            &self.window,
            &title,
            blocked,
            self.confirmed,
        )
        .await?;
        self.approved.push(key);
        // The judged receiver of a piece that went through only by confirmation or approval.
        self.svc.audit(
            AuditRecord {
                approval: by.clone(),
                ..audited
            },
            crate::service::Outcome::Acted,
            None,
            None,
        );
        Ok(match by {
            Some(person) => {
                self.approved_by = Some(person);
                Verdict::ApprovedByPerson
            }
            None => Verdict::Go,
        })
    }
}

/// What the ancestors of a button say of the dialog it answers.
enum Asked {
    /// The dialog (or named pane), read with its texts.
    Dialog(cu_core::element::Snapshot),
    /// None of its ancestors is a dialog or a named pane: it answers no question.
    NoDialog,
    /// The ancestors or the dialog could not be read: the window is read instead.
    Unknown,
}

/// A piece let through: the step, the rule and the receiver judged (normalized).
#[derive(Debug, PartialEq, Eq)]
struct Approved {
    step: usize,
    rule: String,
    receiver: String,
}

impl Approved {
    fn new(step: usize, rule: &str, receiver: &str) -> Approved {
        // As words: "_Delete" (a mnemonic the toolkit leaks) and "Delete" are one receiver.
        let receiver = cu_core::text::words(&cu_core::text::normalize_strict(receiver)).join(" ");
        Approved {
            step,
            rule: rule.to_owned(),
            receiver,
        }
    }
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
/// Between two reads of focus while it settles.
const POLL: Duration = Duration::from_millis(15);

/// The Desktop page's title (`webui/src/assets/index.html`): a window showing it is the page
/// where a person approves what the gate held back, and the tools never operate it, so a model
/// cannot approve its own action by driving a browser that shows the page.
pub const DESKTOP_PAGE_TITLE: &str = "mcp-computer-use · Desktop";

/// The rule named when the gate cannot tell what would receive an input.
pub(super) const UNKNOWN_RECEIVER: &str = "unknown receiver";

/// The receiver of a probe as a person sees it: its role, the name it shows (its label child
/// or icon when it has no name of its own) and where it is.
fn shown_target(probe: &Probe) -> Option<Target> {
    probe.receiver().map(|n| Target {
        role: n.role,
        name: probe.shown_name(),
        bounds: n.bounds,
    })
}

/// How a dialog is read for its question: all of it, with its texts, bounded.
fn question_options(dialog: &ElementIdentity) -> SnapshotOptions {
    SnapshotOptions {
        subtree: Some(dialog.clone()),
        max_depth: None,
        max_nodes: 400,
        time_budget_ms: 1000,
        read_text: true,
        read_cells: false,
        reuse: false,
    }
}

/// After a person's yes: what receives the input is still what they approved.
fn same_as_approved(before: &Result<Probe>, after: &Result<Probe>) -> Result<()> {
    match (before, after) {
        (Ok(a), Ok(b))
            if a.labels() == b.labels()
                && a.receiver().map(|n| n.role) == b.receiver().map(|n| n.role) =>
        {
            Ok(())
        }
        _ => Err(Error::new(
            ErrorCode::ElementNotFound,
            "what the input would reach changed while waiting for approval; nothing was sent",
        )
        .with_suggestion("Observe the window again.")),
    }
}
