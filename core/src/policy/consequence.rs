//! What an activation will do, beyond the word on the control: the dialog a button answers and
//! the buttons a Return lands on.
//!
//! "Yes" is harmless on its own; under "Delete the file report.txt permanently?" it deletes. A
//! Return on a check box does not toggle it: the toolkit (GTK, Qt, browsers) hands it to the
//! dialog's default button. So the gate judges, besides the receiver's own labels:
//!
//! - for a button that **speaks for its dialog** ([`speaks_for_dialog`]: an affirmative word such
//!   as OK, Yes, Continue in any of the gate's languages, or the dialog's default button unless it
//!   is a negative one such as Cancel), the **question** of the dialog it sits in
//!   ([`question_of`]): its headings, and in a message box (a dialog whose controls are nearly
//!   all buttons) its title and message text;
//! - for a Return sent to a control that neither takes line breaks nor is itself pressed by it,
//!   the buttons it lands on ([`return_lands`]): the window's default button, or, in a dialog
//!   without one, every button of the dialog.
//!
//! Context only ever adds: nothing here makes a blocked label pass. Pure: a snapshot in, indexes
//! and texts out; the service reads the window and asks the gate.

use crate::model::element::{ElementIdentity, Node, Snapshot, State};
use crate::model::receiver::Probe;
use crate::model::role::Role;
use crate::model::text;
use crate::policy::safety::{Decision, Gate};

/// What the gate says about one receiver of an activation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Nothing makes it dangerous (or it only opens a menu).
    Allowed,
    /// A label a person reads on it holds a blocked word.
    Word {
        /// The label.
        label: String,
        /// The blocklist entry.
        rule: String,
    },
    /// It answers its dialog, whose question holds a blocked word ("Yes" under "Delete…?").
    Answers {
        /// What the control shows.
        label: String,
        /// The question's text that matched.
        question: String,
        /// The blocklist entry.
        rule: String,
    },
    /// It acts when activated and nothing names it: what it does is unknown.
    Unlabeled {
        /// Its role.
        role: Role,
    },
}

/// Whether judging `probe` needs the window as it is now (the dialog it may answer).
pub fn needs_window(probe: &Probe) -> bool {
    probe
        .receiver()
        .is_some_and(|n| speaks_for_dialog(n, &probe.shown_name()))
}

/// Judges the receiver a probe found (a menu that only opens and an option's check box pass:
/// [`Probe::only_opens_a_menu`], [`Probe::sets_an_option`]): its labels ([`Probe::labels`]), whether it acts unnamed,
/// and, when it speaks for its dialog, the dialog's question read from `window` (the window as
/// read just now; `None` when [`needs_window`] said no).
pub fn judge(gate: &Gate, probe: &Probe, window: Option<&Snapshot>) -> Verdict {
    if probe.only_opens_a_menu() {
        return Verdict::Allowed;
    }
    let labels = probe.labels();
    if let Decision::NeedsConfirmation {
        label,
        matched_rule,
    } = gate.check_all(labels.iter().map(String::as_str))
    {
        // An option's label names it, unless it spends money (a page decides its own roles).
        if probe.sets_an_option() && !crate::policy::safety::spends_money(&matched_rule) {
            return Verdict::Allowed;
        }
        return Verdict::Word {
            label,
            rule: matched_rule,
        };
    }
    if probe.sets_an_option() {
        return Verdict::Allowed;
    }
    let Some(receiver) = probe.receiver() else {
        return Verdict::Allowed;
    };
    if probe.acts_unlabeled() {
        return Verdict::Unlabeled {
            role: receiver.role,
        };
    }
    let shown = probe.shown_name();
    let Some(window) = window.filter(|_| speaks_for_dialog(receiver, &shown)) else {
        return Verdict::Allowed;
    };
    let Some(dialog) = dialog_of(window, find(window, &receiver.identity)) else {
        return Verdict::Allowed;
    };
    match gate.check_all(question_of(window, dialog).iter().map(String::as_str)) {
        Decision::NeedsConfirmation {
            label: question,
            matched_rule,
        } => Verdict::Answers {
            label: shown,
            question,
            rule: matched_rule,
        },
        Decision::Allowed => Verdict::Allowed,
    }
}

/// Labels that say "do what the dialog asks", as whole labels, in the gate's languages.
const AFFIRMATIVE: &[&str] = &[
    // English
    "OK",
    "Okay",
    "Yes",
    "Yes, I'm sure",
    "Continue",
    "Proceed",
    "Confirm",
    "Accept",
    "Agree",
    "I agree",
    "I understand",
    "Go",
    "Go ahead",
    "Do it",
    "Sure",
    "Apply",
    "Done",
    // Hebrew
    "אישור",
    "כן",
    "המשך",
    "אשר",
    // German
    "Ja",
    "Weiter",
    "Fortfahren",
    "Bestätigen",
    "Übernehmen",
    // French
    "Oui",
    "Continuer",
    "D'accord",
    "Valider",
    "Confirmer",
    "Appliquer",
    // Spanish / Portuguese
    "Sí",
    "Aceptar",
    "Continuar",
    "Confirmar",
    "Sim",
    "Aplicar",
    // Russian
    "ОК",
    "Да",
    "Продолжить",
    "Подтвердить",
    "Применить",
    // Chinese
    "确定",
    "確定",
    "是",
    "继续",
    "繼續",
    "好",
    "确认",
    "應用",
    "应用",
    // Japanese
    "はい",
    "続行",
    "続ける",
    "確認",
    "適用",
    // Arabic
    "موافق",
    "نعم",
    "متابعة",
    "تأكيد",
    "تطبيق",
];

/// Labels that say "do nothing": a default button reading so keeps the dialog's question out.
const NEGATIVE: &[&str] = &[
    "Cancel",
    "No",
    "Close",
    "Abort",
    "Back",
    "Keep",
    "Not now",
    "Later",
    "Skip",
    "Dismiss",
    "ביטול",
    "לא",
    "סגור",
    "Abbrechen",
    "Nein",
    "Schließen",
    "Annuler",
    "Non",
    "Fermer",
    "Cancelar",
    "Cerrar",
    "Não",
    "Fechar",
    "Отмена",
    "Нет",
    "Закрыть",
    "取消",
    "否",
    "关闭",
    "關閉",
    "キャンセル",
    "いいえ",
    "閉じる",
    "إلغاء",
    "لا",
    "إغلاق",
];

/// At most this many controls other than buttons for a dialog to count as a message box, whose
/// message text a button answers ("Do not ask again", a "type the name to confirm" field).
const MESSAGE_BOX_CONTROLS: usize = 3;
/// At most this many texts are taken from a dialog's message.
const MAX_QUESTION_TEXTS: usize = 24;

fn words_of(label: &str) -> Vec<String> {
    text::words(&text::normalize_strict(label))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

fn is_listed(label: &str, list: &[&str]) -> bool {
    let want = words_of(label);
    !want.is_empty() && list.iter().any(|l| words_of(l) == want)
}

/// The label is an affirmative answer ("OK", "_Yes", "Continue", "確定").
pub fn is_affirmative(label: &str) -> bool {
    is_listed(label, AFFIRMATIVE)
}

/// The label is a negative answer ("Cancel", "No", "Close").
pub fn is_negative(label: &str) -> bool {
    is_listed(label, NEGATIVE)
}

/// A push button (or link) a dialog's answer is given with.
pub fn is_push_button(role: Role) -> bool {
    matches!(role, Role::Button | Role::Link)
}

/// Whether pressing a control answers its dialog's question: a push button whose label
/// (`shown`, what the gate read) is affirmative, or the default button unless it is negative.
pub fn speaks_for_dialog(node: &Node, shown: &str) -> bool {
    is_push_button(node.role)
        && (is_affirmative(shown) || (node.states.contains(State::Default) && !is_negative(shown)))
}

/// A dialog-like container: a dialog or alert, or a modal window.
pub fn is_dialog(node: &Node) -> bool {
    matches!(node.role, Role::Dialog | Role::Alert)
        || (node.role == Role::Window && node.states.contains(State::Modal))
}

/// A named pane: where no dialog holds a button, the nearest of these is what it answers.
/// Firefox shows a page's `confirm()` in a pane named "The page at … says:" (its role reads as a
/// plain pane where the buttons' parents lead); a web page's own confirmation box is often a
/// labelled region.
pub fn is_named_pane(node: &Node) -> bool {
    matches!(node.role, Role::Group | Role::Form) && !node.name.trim().is_empty()
}

/// The index of the element with `identity` in `snapshot`.
pub fn find(snapshot: &Snapshot, identity: &ElementIdentity) -> Option<usize> {
    snapshot.nodes.iter().position(|n| &n.identity == identity)
}

/// The dialog node `index` sits in: its nearest dialog-like ancestor, else the window's root when
/// the root is one. `index: None` (the element was not found) answers the root when it is one.
pub fn dialog_of(snapshot: &Snapshot, index: Option<usize>) -> Option<usize> {
    let root_is_dialog = snapshot.nodes.first().is_some_and(is_dialog);
    let mut at = index.and_then(|i| snapshot.nodes.get(i)?.parent);
    let mut pane = None;
    while let Some(i) = at {
        let node = snapshot.nodes.get(i as usize)?;
        if is_dialog(node) {
            return Some(i as usize);
        }
        if pane.is_none() && is_named_pane(node) {
            pane = Some(i as usize);
        }
        at = node.parent;
    }
    if root_is_dialog {
        Some(0)
    } else {
        pane
    }
}

/// Indexes of `root`'s subtree, in pre-order, with whether each sits inside an interactive
/// control below `root`.
fn subtree(snapshot: &Snapshot, root: usize) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, false)];
    while let Some((i, inside)) = stack.pop() {
        let Some(node) = snapshot.nodes.get(i) else {
            continue;
        };
        out.push((i, inside));
        let below = inside || (i != root && node.role.is_interactive());
        stack.extend(node.children.iter().rev().map(|c| (*c as usize, below)));
    }
    out
}

fn shows(node: &Node) -> bool {
    !node.states.contains(State::Offscreen) && node.bounds.is_none_or(|b| !b.is_empty())
}

/// On screen for certain: not offscreen, and placed with a size. Firefox's prompt keeps its
/// unused login fields and check box in the dialog, without a place; they are not controls a
/// person sees.
fn placed(node: &Node) -> bool {
    !node.states.contains(State::Offscreen) && node.bounds.is_some_and(|b| !b.is_empty())
}

/// What a person reads as the question of dialog `dialog`: its headings, and, in a message box,
/// its title (name) and message texts. Texts inside controls (a check box's label) are not the
/// question.
pub fn question_of(snapshot: &Snapshot, dialog: usize) -> Vec<String> {
    let Some(root) = snapshot.nodes.get(dialog) else {
        return Vec::new();
    };
    let members = subtree(snapshot, dialog);
    let controls = members
        .iter()
        .filter(|(i, inside)| {
            !inside
                && *i != dialog
                && snapshot.nodes[*i].role.is_interactive()
                && !is_push_button(snapshot.nodes[*i].role)
                && placed(&snapshot.nodes[*i])
        })
        .count();
    let message_box = root.role == Role::Alert || controls <= MESSAGE_BOX_CONTROLS;
    // A form of many controls ("Format Cells", "Preferences") asks no question: its OK applies
    // what the controls say, each of which is judged when it is used.
    let mut out = if message_box {
        vec![root.name.clone()]
    } else {
        Vec::new()
    };
    for (i, inside) in members {
        let node = &snapshot.nodes[i];
        // A text with a place of its own is read even when marked offscreen: a dialog read
        // apart from its window is placed against itself, and its message is its message.
        let readable = node.bounds.is_some_and(|b| !b.is_empty()) || shows(node);
        if inside || i == dialog || !readable {
            continue;
        }
        let read = match node.role {
            Role::Heading => true,
            Role::Label | Role::Paragraph | Role::Alert | Role::Dialog => message_box,
            _ => false,
        };
        if read {
            out.push(node.name.clone());
            if node.role != Role::Heading && message_box {
                if let Some(v) = &node.value {
                    out.push(v.clone());
                }
            }
        }
        if out.len() >= MAX_QUESTION_TEXTS {
            break;
        }
    }
    out.retain(|t| !t.trim().is_empty());
    out.dedup();
    out
}

/// Whether Return sent to `focus` stays there: the control takes line breaks as text, is pressed
/// by it (a push button, a link, a menu item), or is a grid cell (a spreadsheet moves on).
pub fn return_stays(focus: &Node) -> bool {
    let editable =
        focus.states.contains(State::Editable) && !focus.states.contains(State::ReadOnly);
    // An editable paragraph or heading is the text of a document (a LibreOffice paragraph, the
    // cell editor of a Calc cell being typed into): Return breaks the line or commits the cell
    // there, and no default button of the window sees it (Calc's formula bar marks its "Accept"
    // button default, and a table typed into a sheet was refused on "Accept").
    let line_breaks = matches!(focus.role, Role::TextArea | Role::Terminal | Role::Document)
        || (focus.states.contains(State::MultiLine) && editable)
        || (matches!(focus.role, Role::Paragraph | Role::Heading) && editable);
    line_breaks
        || matches!(
            focus.role,
            Role::Button
                | Role::ToggleButton
                | Role::Link
                | Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::Cell
        )
}

/// Whether `focus` sits in a toolbar (below `pane`, where there is one).
fn in_toolbar(snapshot: &Snapshot, focus: Option<usize>, pane: Option<usize>) -> bool {
    let mut at = focus.and_then(|i| snapshot.nodes.get(i)?.parent);
    while let Some(i) = at.map(|i| i as usize) {
        if Some(i) == pane {
            return false;
        }
        let Some(node) = snapshot.nodes.get(i) else {
            return false;
        };
        if node.role == Role::Toolbar {
            return true;
        }
        at = node.parent;
    }
    false
}

/// The buttons a Return lands on when the focused control (`focus`, an index into `snapshot`,
/// `None` when nothing is focused or it was not found) does not keep it: the window's showing,
/// enabled default button; in a dialog without one, every showing, enabled push button of the
/// dialog that something names (which one the toolkit picks is not exposed; GTK 4 marks no
/// default, and its file chooser's unnamed icon buttons are not where a Return in the name field
/// goes).
pub fn return_lands(snapshot: &Snapshot, focus: Option<usize>) -> Vec<usize> {
    let usable = |n: &Node| shows(n) && !n.states.contains(State::Disabled);
    // A field in a toolbar of a window that is no dialog keeps its Return (LibreOffice's Name
    // Box jumps to the cell it names; its Return was judged as landing on every button of the
    // document's pane, "Delete Decimal Place" among them): toolbars have no default button.
    let dialog = dialog_of(snapshot, focus);
    let in_a_dialog = dialog
        .and_then(|d| snapshot.nodes.get(d))
        .is_some_and(is_dialog);
    if !in_a_dialog && in_toolbar(snapshot, focus, dialog) {
        return Vec::new();
    }
    let default = snapshot
        .nodes
        .iter()
        .position(|n| n.states.contains(State::Default) && n.role.is_interactive() && usable(n));
    if let Some(d) = default {
        return vec![d];
    }
    let Some(dialog) = dialog else {
        return Vec::new();
    };
    subtree(snapshot, dialog)
        .into_iter()
        .filter(|(i, inside)| {
            !inside && is_push_button(snapshot.nodes[*i].role) && usable(&snapshot.nodes[*i])
        })
        .map(|(i, _)| i)
        .filter(|i| !Probe::from_node(snapshot, *i).labels().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::extract::outline_fixture;

    fn parse(fixture: &str) -> Snapshot {
        match outline_fixture::parse(&format!("---\n{fixture}")) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    fn index(s: &Snapshot, name: &str) -> usize {
        s.nodes
            .iter()
            .position(|n| n.name == name)
            .unwrap_or_else(|| panic!("no {name:?}"))
    }

    const ZENITY: &str = "dialog \"Question\"\n  label \"Delete the file report.txt permanently?\"\n  button \"No\"\n  button \"Yes\" [default]\n";

    #[test]
    fn affirmative_and_negative_words_in_every_language() {
        for yes in [
            "OK", "_OK", "&Yes", "Yes", "continue", "Ja", "Oui", "Sí", "Да", "确定", "はい", "نعم",
            "כן",
        ] {
            assert!(is_affirmative(yes), "{yes}");
        }
        for not in ["Cancel", "Delete", "Open", "Yes please delete", ""] {
            assert!(!is_affirmative(not), "{not}");
        }
        assert!(is_negative("_Cancel") && is_negative("Abbrechen") && !is_negative("OK"));
    }

    #[test]
    fn a_yes_answers_the_message_of_its_dialog() {
        let s = parse(ZENITY);
        let yes = index(&s, "Yes");
        assert!(speaks_for_dialog(&s.nodes[yes], "Yes"));
        assert!(!speaks_for_dialog(&s.nodes[index(&s, "No")], "No"));
        let dialog = dialog_of(&s, Some(yes));
        assert_eq!(dialog, Some(0));
        assert_eq!(
            question_of(&s, 0),
            vec!["Question", "Delete the file report.txt permanently?"]
        );
    }

    #[test]
    fn a_default_cancel_does_not_speak_for_the_dialog() {
        let s = parse("dialog \"Delete?\"\n  button \"Cancel\" [default]\n  button \"Go on\"\n");
        assert!(!speaks_for_dialog(&s.nodes[1], "Cancel"));
        let s = parse("dialog \"Delete?\"\n  button \"Go on\" [default]\n");
        assert!(speaks_for_dialog(&s.nodes[1], "Go on"));
    }

    #[test]
    fn a_form_of_many_controls_asks_no_question() {
        let s = parse(
            "dialog \"Format Cells\"\n  check_box \"Delete history on exit\" @0,0 10x10\n  check_box \"Send reports\" @0,20 10x10\n  text_input \"Home page\" @0,40 10x10\n  combo_box \"Theme\" @0,60 10x10\n  label \"Remove old files after\"\n  heading \"Numbers\"\n  button \"OK\"\n",
        );
        assert_eq!(question_of(&s, 0), vec!["Numbers"]);
    }

    /// Firefox's prompt for a page's `confirm()` keeps its unused login fields and check box in
    /// the dialog, unplaced: they made it a form, so its question went unread and OK passed.
    #[test]
    fn regression_unplaced_controls_do_not_make_a_message_box_a_form() {
        let s = parse(
            "window \"Shop\"\n  dialog \"The page at file:// says:\" @0,0 300x100\n    text_input \"\"\n    password_input \"\"\n    check_box \"\" [offscreen]\n    text_input \"\"\n    label \"Place this order now?\" @10,10 200x20\n    button \"Cancel\" @10,60 80x30\n    button \"OK\" @100,60 80x30\n",
        );
        assert_eq!(
            question_of(&s, 1),
            vec!["The page at file:// says:", "Place this order now?"]
        );
    }

    #[test]
    fn a_dialog_inside_a_page_is_found_from_its_button() {
        let s = parse(
            "window \"Shop\"\n  document \"Shop\"\n    dialog \"\"\n      paragraph \"Place this order now?\"\n      button \"OK\"\n      button \"Cancel\"\n  button \"OK\"\n",
        );
        let ok = s
            .nodes
            .iter()
            .position(|n| n.name == "OK")
            .unwrap_or_default();
        let dialog = dialog_of(&s, Some(ok));
        assert_eq!(dialog.map(|d| s.nodes[d].role), Some(Role::Dialog));
        assert_eq!(
            question_of(&s, dialog.unwrap_or_default()),
            vec!["Place this order now?"]
        );
        let outside = s.nodes.len() - 1;
        assert_eq!(
            dialog_of(&s, Some(outside)),
            None,
            "the page's own OK is in no dialog"
        );
    }

    /// Firefox's prompt for a page's `confirm()`: its buttons' parents lead up through a pane
    /// named "The page at … says:", not a dialog; OK passed.
    #[test]
    fn regression_firefox_prompt_is_a_named_pane() {
        let s = parse(
            "window \"Shop\"\n  group\n    scroll_pane\n      group\n        group \"The page at file:// says:\" @0,0 300x100\n          label \"Place this order now?\" @10,10 200x20\n          button \"Cancel\" @10,60 80x30\n          button \"OK\" @100,60 80x30\n",
        );
        let ok = index(&s, "OK");
        let pane = dialog_of(&s, Some(ok));
        assert_eq!(pane, Some(index(&s, "The page at file:// says:")));
        let probe = Probe::from_node(&s, ok);
        assert!(matches!(
            judge(&Gate::default(), &probe, Some(&s)),
            Verdict::Answers { .. }
        ));
    }

    #[test]
    fn return_lands_on_the_default_else_every_button_of_the_dialog() {
        let s = parse(
            "dialog \"Delete?\"\n  check_box \"Do not ask again\" [focused]\n  button \"Cancel\"\n  button \"Delete\" [default]\n",
        );
        let check = index(&s, "Do not ask again");
        assert!(!return_stays(&s.nodes[check]));
        assert_eq!(return_lands(&s, Some(check)), vec![index(&s, "Delete")]);
        let s = parse(
            "dialog \"Delete?\"\n  check_box \"Do not ask again\" [focused]\n  button \"Cancel\"\n  button \"Delete\"\n",
        );
        assert_eq!(
            return_lands(&s, Some(1)),
            vec![index(&s, "Cancel"), index(&s, "Delete")]
        );
        let s = parse(
            "dialog \"Save File\"\n  text_input \"Name\" [focused]\n  button\n    image\n  button \"Cancel\"\n  button \"Save\"\n",
        );
        assert_eq!(
            return_lands(&s, Some(1)),
            vec![index(&s, "Cancel"), index(&s, "Save")],
            "an unnamed icon button is not where Return goes"
        );
        let s = parse("window \"Editor\"\n  check_box \"Wrap\"\n  button \"Delete\"\n");
        assert!(
            return_lands(&s, Some(1)).is_empty(),
            "no dialog, no default: Return stays"
        );
    }

    /// Issue 40 (task-bench): "C3" and Return in Calc's Name Box was refused as "Return lands
    /// on Delete Decimal Place": the field's nearest named pane is the document's, which holds
    /// every toolbar.
    #[test]
    fn regression_a_return_in_a_toolbars_field_landed_on_the_panes_buttons() {
        let s = parse(
            "window \"Calc\"\n  group \"Untitled 1\"\n    toolbar \"Formula Tool Bar\"\n      group\n        text_input \"Name Box\" [focused]\n    toolbar \"Formatting\"\n      button \"Delete Decimal Place\"\n",
        );
        assert!(return_lands(&s, Some(index(&s, "Name Box"))).is_empty());
        // Whatever a toolbar's button says of itself.
        let s = parse(
            "window \"Calc\"\n  toolbar \"Formula Tool Bar\"\n    text_input \"Name Box\" [focused]\n  toolbar \"Formatting\"\n    button \"Delete Decimal Place\" [default]\n",
        );
        assert!(return_lands(&s, Some(index(&s, "Name Box"))).is_empty());
        // A form's field still lands on its buttons, and a dialog's toolbar field on the dialog's.
        let s = parse(
            "window \"Shop\"\n  form \"Order\"\n    text_input \"Card\" [focused]\n    button \"Pay now\"\n",
        );
        assert_eq!(
            return_lands(&s, Some(index(&s, "Card"))),
            vec![index(&s, "Pay now")]
        );
        let s = parse(
            "dialog \"Find\"\n  toolbar \"Search\"\n    text_input \"Find\" [focused]\n  button \"Delete All\"\n",
        );
        assert_eq!(
            return_lands(&s, Some(index(&s, "Find"))),
            vec![index(&s, "Delete All")]
        );
    }

    /// The decisions, one table: (window, the receiver's name, what the gate says).
    #[test]
    fn the_consequence_table() {
        let gate = Gate::default();
        let cases: &[(&str, &str, &str)] = &[
            (ZENITY, "Yes", "answers Delete"),
            (ZENITY, "No", "allowed"),
            ("dialog \"Send\"\n  label \"Send this message to 40 people?\"\n  button \"Cancel\"\n  button \"OK\"\n", "OK", "answers Send"),
            ("dialog \"\"\n  label \"Place this order now?\"\n  button \"OK\"\n", "OK", "answers Place … order"),
            ("dialog \"Save changes?\"\n  label \"Your changes will be lost.\"\n  button \"Don't Save\"\n  button \"Save\" [default]\n", "Save", "allowed"),
            ("dialog \"Find & Replace\"\n  text_input \"Find\"\n  text_input \"Replace\"\n  check_box \"Match case\"\n  check_box \"Whole words\"\n  label \"Remove formatting\"\n  button \"Replace All\"\n  button \"Close\" [default]\n", "Replace All", "allowed"),
            ("window \"Editor\"\n  label \"Delete everything?\"\n  button \"OK\"\n", "OK", "allowed"),
            ("dialog \"Löschen?\"\n  label \"Datei endgültig löschen?\"\n  button \"Ja\"\n", "Ja", "answers"),
            ("dialog \"Question\"\n  label \"Delete the file?\"\n  button \"Go on\" [default]\n", "Go on", "answers Delete"),
            ("dialog \"Question\"\n  label \"Delete the file?\"\n  button \"Cancel\" [default]\n", "Cancel", "allowed"),
            ("window \"W\"\n  button \"Delete\"\n", "Delete", "word Delete"),
            ("window \"W\"\n  menu \"Format\" [has_popup]\n", "Format", "allowed"),
            ("window \"W\"\n  menu \"Pay now\"\n", "Pay now", "word Pay"),
            ("document \"Form\"\n  check_box \"Send me the newsletter\"\n", "Send me the newsletter", "allowed"),
            ("dialog \"Options\"\n  radio_button \"Delete history on exit\"\n", "Delete history on exit", "allowed"),
            ("window \"W\"\n  switch \"Erase after sync\"\n", "Erase after sync", "allowed"),
            ("document \"Shop\"\n  check_box \"Pay now\"\n", "Pay now", "word Pay"),
            ("window \"W\"\n  toggle_button \"Delete\"\n", "Delete", "word Delete"),
            ("window \"W\"\n  check_menu_item \"Send on Enter\"\n", "Send on Enter", "word Send"),
        ];
        for (fixture, name, want) in cases {
            let s = parse(fixture);
            let i = index(&s, name);
            let probe = Probe::from_node(&s, i);
            let window = needs_window(&probe).then_some(&s);
            let got = match judge(&gate, &probe, window) {
                Verdict::Allowed => "allowed".to_owned(),
                Verdict::Word { rule, .. } => format!("word {rule}"),
                Verdict::Answers { rule, .. } => format!("answers {rule}"),
                Verdict::Unlabeled { role } => format!("unlabeled {role}"),
            };
            assert!(
                got.starts_with(want),
                "{name:?} in {fixture:?}: {got}, want {want}"
            );
        }
        let s = parse("window \"W\"\n  button\n    image\n");
        assert_eq!(
            judge(&gate, &Probe::from_node(&s, 1), None),
            Verdict::Unlabeled { role: Role::Button }
        );
    }

    /// Real labels and descriptions, one control each, with the gate's decision written down:
    /// (language, the control as an outline line, needs confirmation, why). Labels are taken
    /// from the apps and catalogs they come from (LibreOffice, GTK, Qt, Firefox, Chromium,
    /// Thunar, Nautilus, Evolution, web shops and mail).
    const LABELS: &[(&str, &str, bool, &str)] = &[
        // Must pass: descriptions that mention a blocked word, menus that only open, everyday verbs.
        (
            "en",
            r#"button "Replace All" ~"Replaces all of the text or format that you want to replace""#,
            false,
            "LibreOffice Find & Replace: the tooltip is not the label",
        ),
        (
            "en",
            r#"button "Find All" ~"Finds all occurrences of the text or format""#,
            false,
            "LibreOffice",
        ),
        (
            "en",
            r#"button "Find Next" ~"Finds the next occurrence of the text or of the format""#,
            false,
            "LibreOffice",
        ),
        (
            "en",
            r#"button "Find Previous" ~"Finds the previous occurrence of the text or format""#,
            false,
            "LibreOffice",
        ),
        (
            "en",
            r#"button "Close" ~"Closes the dialog and discards all unsaved changes""#,
            false,
            "the tooltip is not the label",
        ),
        (
            "en",
            r#"button "Help" ~"Shows help; does not delete anything""#,
            false,
            "description only",
        ),
        (
            "en",
            r#"check_box "Match case" ~"Distinguishes between uppercase and lowercase; removes nothing""#,
            false,
            "description only",
        ),
        (
            "en",
            r#"button "Save" ~"Save the document before you send it""#,
            false,
            "description only",
        ),
        (
            "en",
            r#"button "Open" ~"Open a file to merge""#,
            false,
            "description only",
        ),
        (
            "en",
            r#"button "Cancel" ~"Cancel and do not pay""#,
            false,
            "description only",
        ),
        (
            "en",
            r#"button "Bold" ~"Formats the selection bold""#,
            false,
            "the tooltip says Format, the label does not",
        ),
        (
            "en",
            r#"menu "Format" [has_popup]"#,
            false,
            "a menu bar entry that opens",
        ),
        ("en", r#"menu "Edit" [has_popup]"#, false, "opens"),
        (
            "en",
            "menu \"Delete\"\n    menu_item \"Rows\"",
            false,
            "a submenu with items opens",
        ),
        ("en", r#"menu "Send To" [has_popup]"#, false, "opens"),
        (
            "en",
            r#"button "Information""#,
            false,
            "Format is not in Information",
        ),
        ("en", r#"button "Sender""#, false, "whole words"),
        (
            "en",
            r#"button "Sort order""#,
            false,
            "Order alone is not a rule",
        ),
        ("en", r#"button "Find & Replace""#, false, "everyday"),
        ("en", r#"button "Save As""#, false, "everyday"),
        ("en", r#"button "Print""#, false, "everyday"),
        ("en", r#"button "Copy""#, false, "everyday"),
        ("en", r#"button "Paste Special""#, false, "everyday"),
        ("en", r#"button "Undo""#, false, "everyday"),
        ("en", r#"button "New Folder""#, false, "everyday"),
        ("en", r#"button "Rename""#, false, "everyday"),
        ("en", r#"button "Sort Ascending""#, false, "everyday"),
        ("en", r#"button "Insert Table""#, false, "everyday"),
        ("en", r#"button "Zoom In""#, false, "everyday"),
        ("en", r#"link "Sign in""#, false, "everyday"),
        ("en", r#"button "Add to list""#, false, "everyday"),
        ("en", r#"button "Next""#, false, "everyday"),
        ("en", r#"button "Back""#, false, "everyday"),
        ("en", r#"button "Refresh""#, false, "everyday"),
        ("en", r#"button "Preferences""#, false, "everyday"),
        ("en", r#"toggle_button "Italic""#, false, "everyday"),
        (
            "en",
            r#"check_box """#,
            false,
            "an unnamed check box sets an option",
        ),
        ("de", r#"button "Speichern""#, false, "Save"),
        ("de", r#"button "Abbrechen""#, false, "Cancel"),
        ("fr", r#"button "Enregistrer""#, false, "Save"),
        ("es", r#"button "Guardar""#, false, "Save"),
        ("ru", r#"button "Сохранить""#, false, "Save"),
        ("zh", r#"button "保存""#, false, "Save"),
        ("ja", r#"button "保存""#, false, "Save"),
        ("ar", r#"button "حفظ""#, false, "Save"),
        ("he", r#"button "שמור""#, false, "Save"),
        // Must be gated: English, the predecessor's and the verbs it missed.
        ("en", r#"button "Delete""#, true, "predecessor"),
        (
            "en",
            r#"button "Use Excel 2007-365 Format!""#,
            true,
            "the predecessor keeps Format",
        ),
        ("en", r#"button "Move to Trash""#, true, "destroys"),
        (
            "en",
            r#"menu_item "Move 3 Items to the Trash""#,
            true,
            "a gap in the rule",
        ),
        ("en", r#"button "Discard""#, true, "destroys"),
        (
            "en",
            r#"button "Don't Save""#,
            true,
            "destroys unsaved work",
        ),
        (
            "en",
            r#"button "Close without Saving""#,
            true,
            "destroys unsaved work",
        ),
        ("en", r#"button "Erase""#, true, "destroys"),
        ("en", r#"button "Empty Trash""#, true, "destroys"),
        ("en", r#"button "Overwrite""#, true, "destroys"),
        ("en", r#"button "Post""#, true, "sends"),
        ("en", r#"button "Reply""#, true, "sends"),
        ("en", r#"button "Share""#, true, "sends"),
        ("en", r#"button "Checkout""#, true, "pays"),
        ("en", r#"button "Place order""#, true, "pays"),
        ("en", r#"button "Transfer""#, true, "pays"),
        ("en", r#"button "Install""#, true, "changes the system"),
        ("en", r#"button "Forward""#, true, "sends"),
        ("en", r#"button "Delete Permanently""#, true, "destroys"),
        (
            "en",
            r#"button ~"Delete""#,
            true,
            "an icon button known by its tooltip",
        ),
        (
            "en",
            "button\n    image \"Move to Trash\"",
            true,
            "an icon named so",
        ),
        ("en", r#"button """#, true, "nothing names it: unknown"),
        ("en", r#"link """#, true, "nothing names it: unknown"),
        ("en", r#"menu "Pay now""#, true, "a menu role that acts"),
        (
            "en",
            "menu\n    label \"Pay now\"",
            true,
            "a menu role that acts, its text inside",
        ),
        (
            "en",
            "button \"\u{202E}eteleD\u{202C}\"",
            true,
            "reversed under a bidi override",
        ),
        (
            "en",
            "button \"De\u{2009}lete\"",
            true,
            "a thin space inside",
        ),
        (
            "en",
            "button \"\u{13A0}elete\"",
            true,
            "a Cherokee lookalike",
        ),
        // Hebrew
        ("he", r#"button "מחק""#, true, "delete"),
        ("he", r#"button "שלח""#, true, "send"),
        ("he", r#"button "לתשלום""#, true, "to payment"),
        ("he", r#"button "הסר התקנה""#, true, "uninstall"),
        ("he", r#"button "אישור""#, true, "the predecessor blocks it"),
        ("he", r#"button "פרסם""#, true, "publish"),
        ("he", r#"button "למחוק""#, true, "to delete"),
        ("he", r#"button "ושלח""#, true, "and send"),
        // German
        ("de", r#"button "Löschen""#, true, "delete"),
        ("de", r#"button "Entfernen""#, true, "remove"),
        ("de", r#"button "Senden""#, true, "send"),
        ("de", r#"button "Bezahlen""#, true, "pay"),
        ("de", r#"button "Deinstallieren""#, true, "uninstall"),
        ("de", r#"button "Papierkorb leeren""#, true, "empty trash"),
        ("de", r#"button "Überschreiben""#, true, "overwrite"),
        (
            "de",
            r#"button "Dauerhaft löschen""#,
            true,
            "delete permanently",
        ),
        ("de", r#"button "Installieren""#, true, "install"),
        // French
        ("fr", r#"button "Supprimer""#, true, "delete"),
        ("fr", r#"button "Effacer""#, true, "erase"),
        ("fr", r#"button "Envoyer""#, true, "send"),
        ("fr", r#"button "Désinstaller""#, true, "uninstall"),
        ("fr", r#"button "Vider la corbeille""#, true, "empty trash"),
        ("fr", r#"button "Écraser""#, true, "overwrite"),
        (
            "fr",
            r#"button "Supprimer définitivement""#,
            true,
            "delete permanently",
        ),
        ("fr", r#"button "Installer""#, true, "install"),
        // Spanish
        ("es", r#"button "Eliminar""#, true, "delete"),
        ("es", r#"button "Borrar""#, true, "delete"),
        ("es", r#"button "Enviar""#, true, "send"),
        ("es", r#"button "Pagar""#, true, "pay"),
        ("es", r#"button "Desinstalar""#, true, "uninstall"),
        ("es", r#"button "Vaciar la papelera""#, true, "empty trash"),
        ("es", r#"button "Sobrescribir""#, true, "overwrite"),
        ("es", r#"button "Descartar""#, true, "discard"),
        // Portuguese
        ("pt", r#"button "Excluir""#, true, "delete"),
        ("pt", r#"button "Apagar""#, true, "delete"),
        ("pt", r#"button "Remover""#, true, "remove"),
        ("pt", r#"button "Enviar""#, true, "send"),
        ("pt", r#"button "Pagar""#, true, "pay"),
        ("pt", r#"button "Esvaziar lixeira""#, true, "empty trash"),
        ("pt", r#"button "Sobrescrever""#, true, "overwrite"),
        (
            "pt",
            r#"button "Excluir permanentemente""#,
            true,
            "delete permanently",
        ),
        // Russian
        ("ru", r#"button "Удалить""#, true, "delete"),
        ("ru", r#"button "Отправить""#, true, "send"),
        ("ru", r#"button "Оплатить""#, true, "pay"),
        ("ru", r#"button "Перезаписать""#, true, "overwrite"),
        ("ru", r#"button "Не сохранять""#, true, "don't save"),
        ("ru", r#"button "Установить""#, true, "install"),
        (
            "ru",
            r#"button "Удалить безвозвратно""#,
            true,
            "delete permanently",
        ),
        ("ru", r#"button "Ответить всем""#, true, "reply all"),
        // Chinese
        ("zh", r#"button "删除""#, true, "delete"),
        ("zh", r#"button "删除文件""#, true, "delete, inside a label"),
        ("zh", r#"button "刪除""#, true, "delete, traditional"),
        ("zh", r#"button "发送""#, true, "send"),
        ("zh", r#"button "付款""#, true, "pay"),
        ("zh", r#"button "卸载""#, true, "uninstall"),
        ("zh", r#"button "不保存""#, true, "don't save"),
        ("zh", r#"button "永久删除""#, true, "delete permanently"),
        // Japanese
        ("ja", r#"button "削除""#, true, "delete"),
        ("ja", r#"button "送信""#, true, "send"),
        ("ja", r#"button "お支払い""#, true, "pay"),
        ("ja", r#"button "アンインストール""#, true, "uninstall"),
        ("ja", r#"button "ゴミ箱を空にする""#, true, "empty trash"),
        ("ja", r#"button "上書き""#, true, "overwrite"),
        ("ja", r#"button "保存しない""#, true, "don't save"),
        ("ja", r#"button "完全に削除""#, true, "delete permanently"),
        // Arabic
        ("ar", r#"button "حذف""#, true, "delete"),
        ("ar", r#"button "احذف""#, true, "delete!"),
        ("ar", r#"button "إرسال""#, true, "send"),
        ("ar", r#"button "الدفع""#, true, "pay"),
        ("ar", r#"button "إزالة التثبيت""#, true, "uninstall"),
        ("ar", r#"button "لا تحفظ""#, true, "don't save"),
        ("ar", r#"button "تثبيت""#, true, "install"),
        ("ar", r#"button "احذف نهائيا""#, true, "delete permanently"),
    ];

    #[test]
    fn the_label_table_in_ten_languages() {
        let gated: Vec<&str> = LABELS.iter().filter(|r| r.2).map(|r| r.0).collect();
        let passing = LABELS.len() - gated.len();
        assert!(
            gated.len() >= 80 && passing >= 40,
            "{} gated, {passing} passing",
            gated.len()
        );
        for lang in ["en", "he", "de", "fr", "es", "pt", "ru", "zh", "ja", "ar"] {
            assert!(gated.iter().filter(|l| **l == lang).count() >= 7, "{lang}");
        }
        let gate = Gate::default();
        let wrong: Vec<String> = LABELS
            .iter()
            .filter_map(|(lang, line, want, why)| {
                let s = parse(&format!("window \"W\"\n  {line}\n"));
                let probe = Probe::from_node(&s, 1);
                let window = needs_window(&probe).then_some(&s);
                let gated = judge(&gate, &probe, window) != Verdict::Allowed;
                (gated != *want).then(|| format!("{lang} {line:?} ({why}): want gated={want}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn return_stays_in_text_areas_buttons_and_cells() {
        let s = parse(
            "window \"W\"\n  text_area \"Body\"\n  text_input \"Name\"\n  button \"OK\"\n  cell \"A1\"\n  check_box \"C\"\n",
        );
        let stays: Vec<bool> = s.nodes[1..].iter().map(return_stays).collect();
        assert_eq!(stays, vec![true, false, true, true, false]);
    }

    /// Calc's cell editor is an editable paragraph, and its formula bar marks "Accept" as the
    /// default button: a table typed into a sheet was refused on "Return lands on Accept".
    #[test]
    fn regression_return_in_a_calc_cell_editor_landed_on_the_formula_bars_accept() {
        let s = parse(
            "window \"Untitled 1 - LibreOffice Calc\"\n  document \"Sheet\"\n    paragraph \"\" =\"Qty\" [editable, focused]\n  button \"Accept\" [default]\n  label \"Status\"\n",
        );
        let editor = index(&s, "");
        assert!(return_stays(&s.nodes[editor]));
        // A paragraph that only shows text (a label's words) keeps no Return.
        let shown = parse("window \"W\"\n  paragraph \"Note\"\n");
        assert!(!return_stays(&shown.nodes[1]));
    }
}
