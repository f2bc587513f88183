//! The gate's judgements, made by the [`Sender`] right before a piece of input goes: what the
//! focus or the point will really reach (the receiver, the dialog it answers, where a Return
//! lands, the items of an open menu), each judged by the consequence rules, and what happens
//! when one is stopped (a refusal, or a person's approval).

use cu_core::model::element::{ElementIdentity, SnapshotOptions, State};
use cu_core::model::geometry::Point;
use cu_core::model::receiver::{opens_menu_only, Probe};
use cu_core::policy::activation::Reach;
use cu_core::policy::consequence;
use cu_core::policy::safety::Decision;
use cu_core::store::approvals::Target;
use cu_core::store::audit::AuditRecord;
use cu_core::{Error, ErrorCode, Result};

use super::{Sender, UNKNOWN_RECEIVER};
use crate::approval::{Blocked, Reason};

/// Whether a judged piece may go, and who said so.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Nothing blocked, or the caller confirmed.
    Go,
    /// A person approved it on the Desktop page: read it again before sending.
    ApprovedByPerson,
}

/// What the ancestors of a button say of the dialog it answers.
enum Asked {
    /// The dialog (or named pane), read with its texts.
    Dialog(cu_core::model::element::Snapshot),
    /// None of its ancestors is a dialog or a named pane: it answers no question.
    NoDialog,
    /// The ancestors or the dialog could not be read: the window is read instead.
    Unknown,
}

/// A piece let through: the step, the rule and the receiver judged (normalized).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Approved {
    step: usize,
    rule: String,
    receiver: String,
}

impl Approved {
    pub(super) fn new(step: usize, rule: &str, receiver: &str) -> Approved {
        // As words: "_Delete" (a mnemonic the toolkit leaks) and "Delete" are one receiver.
        let receiver =
            cu_core::model::text::words(&cu_core::model::text::normalize_strict(receiver))
                .join(" ");
        Approved {
            step,
            rule: rule.to_owned(),
            receiver,
        }
    }
}

impl Sender<'_> {
    pub(super) async fn judge_keyboard(&mut self, reach: Reach, what: &str) -> Result<()> {
        let focus = match reach {
            Reach::MovesFocus | Reach::Other => return Ok(()),
            Reach::AccessKey => return self.judge_access_keys(what).await,
            _ => match (&self.carried, &self.focus) {
                // What is typed on into the sheet's next cell is judged as in the cell it left.
                (Some(_), Some(Ok(left))) => Ok(left.clone()),
                _ => self.focus().await.clone(),
            },
        };
        if let Ok(f) = &focus {
            // The receiver only: the typed piece never reaches a log.
            tracing::debug!(
                ?reach,
                receiver = ?f.receiver().map(|n| (n.role, n.states)),
                "judging a keyboard piece"
            );
        }
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
        let shown = |node: &cu_core::model::element::Node| {
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
            .find(|n| n.role == cu_core::model::role::Role::Menu)
        else {
            return self.judge_access_keys(what).await;
        };
        let options = SnapshotOptions {
            subtree: Some(menu.identity.clone()),
            max_depth: Some(2 + cu_core::model::receiver::INNER_LABEL_DEPTH),
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
        let item = |node: &cu_core::model::element::Node| {
            node.role.is_interactive() || node.role == cu_core::model::role::Role::Menu
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
        snapshot: &cu_core::model::element::Snapshot,
        from: usize,
        candidate: &(dyn Fn(&cu_core::model::element::Node) -> bool + Sync),
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
        window: cu_core::model::element::Snapshot,
        receiver: &ElementIdentity,
    ) -> cu_core::model::element::Snapshot {
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
    async fn window_now(
        &mut self,
        what: &str,
    ) -> Result<Option<cu_core::model::element::Snapshot>> {
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
    pub(super) async fn judge_hit(&mut self, probe: &Result<Probe>, at: Point) -> Result<Verdict> {
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
    pub(super) async fn judge(&mut self, probe: &Probe, point: Option<Point>) -> Result<Verdict> {
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
pub(super) fn same_as_approved(before: &Result<Probe>, after: &Result<Probe>) -> Result<()> {
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
