//! The conditions `gui_wait` (and an action's `expect`) wait for, and how one observation is
//! judged against them. Pure: the polling and event loop is the service's (`tools/src/wait.rs`).
//!
//! A [`Condition`] is what the agent sends (flat, one `until` word and the fields it needs); it
//! is checked once into a [`Check`], which cannot be ill-formed. An element condition is judged
//! on a [`Snapshot`] ([`judge_element`]): only elements on screen count (not marked offscreen,
//! with a position when the tree has positions), found by identity (an id of an earlier
//! observation) or by text in their name, value or description, compared like labels, and
//! optionally by role. Window conditions are judged on the window list ([`judge_windows`]).

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::element::{ElementIdentity, Node, Snapshot, State};
use crate::model::role::Role;
use crate::model::window::{WindowId, WindowInfo};

/// What to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Until {
    /// An element is on screen.
    Appears,
    /// No such element is on screen.
    Disappears,
    /// The element is on screen and not disabled.
    Enabled,
    /// The element is checked (or pressed).
    Checked,
    /// The element has keyboard focus.
    Focused,
    /// The element's value (or, without one, its name) equals `text`.
    ValueIs,
    /// The element's value (or name) contains `text`.
    ValueContains,
    /// A window whose title contains `text` is listed.
    WindowAppears,
    /// The window `window_id` is no longer listed.
    WindowCloses,
    /// Nothing in the window changes for `quiet_ms`.
    Stable,
}

/// A condition as the agent sends it. The field docs are part of the tools' input schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// What to wait for.
    pub until: Until,
    /// The element: text of its name, value or description (compared like labels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(length(max = 200)))]
    pub name: Option<String>,
    /// The element: its role as outlines show it (button, check_box, text_input, label…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub role: Option<Role>,
    /// The element: an id of the observation state_id names (instead of name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// value_is / value_contains: the value; window_appears: part of the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(length(max = 200)))]
    pub text: Option<String>,
    /// stable: how long nothing may change, in ms (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 50, max = 10000)))]
    pub quiet_ms: Option<u64>,
}

/// The longest `name` or `text` a condition takes.
pub const MAX_TEXT_CHARS: usize = 200;

/// How an element is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The element an earlier observation listed.
    Identity(ElementIdentity),
    /// Elements whose name, value or description contains `text` (normalized; empty = any),
    /// of `role` if given.
    Text {
        /// The normalized text.
        text: String,
        /// The role, if given.
        role: Option<Role>,
    },
}

impl Target {
    /// The target in words: `text_area matching "42"`, `element matching "Done"`.
    pub fn describe(&self) -> String {
        match self {
            Target::Identity(_) => "element with that id".into(),
            Target::Text { text, role } => {
                let role = role.map_or("element".to_owned(), |r| r.as_str().to_owned());
                if text.is_empty() {
                    role
                } else {
                    format!("{role} matching \"{text}\"")
                }
            }
        }
    }
}

/// What must hold of the element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// One is on screen.
    Present,
    /// None is on screen.
    Absent,
    /// One is on screen and not disabled.
    Enabled,
    /// One is checked or pressed.
    Checked,
    /// One has focus.
    Focused,
    /// One's value (normalized) equals this.
    ValueIs(String),
    /// One's value (normalized) contains this.
    ValueContains(String),
}

/// A condition that has been checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Judged on the window's snapshot.
    Element {
        /// Which element.
        target: Target,
        /// What must hold.
        want: Want,
    },
    /// A window whose title contains this (normalized) is listed.
    WindowAppears(String),
    /// The watched window is not listed.
    WindowCloses,
    /// The window's outline stays the same this long.
    Stable(std::time::Duration),
}

fn invalid(message: impl Into<String>, suggestion: &str) -> Error {
    Error::new(ErrorCode::InvalidArgument, message).with_suggestion(suggestion)
}

impl Condition {
    /// Checks the condition into a [`Check`]. `element_id` is resolved by `resolve` (the
    /// caller's observation); a missing or useless field is an `INVALID_ARGUMENT` naming it.
    pub fn check(&self, resolve: impl FnOnce(&str) -> Result<ElementIdentity>) -> Result<Check> {
        for (field, value) in [("name", &self.name), ("text", &self.text)] {
            if value
                .as_ref()
                .is_some_and(|v| v.chars().count() > MAX_TEXT_CHARS)
            {
                return Err(invalid(
                    format!("{field} has more than {MAX_TEXT_CHARS} characters"),
                    "Give a few words of it.",
                ));
            }
        }
        let text = || {
            self.text
                .as_deref()
                .map(crate::model::text::normalize)
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    invalid(
                        format!("until={} needs text", until_name(self.until)),
                        "Give the text to wait for in text.",
                    )
                })
        };
        let element_fields =
            self.name.is_some() || self.role.is_some() || self.element_id.is_some();
        match self.until {
            Until::WindowAppears => {
                if element_fields {
                    return Err(invalid(
                        "until=window_appears takes a title in text, not an element",
                        "Put part of the window's title in text.",
                    ));
                }
                Ok(Check::WindowAppears(text()?))
            }
            Until::WindowCloses | Until::Stable => {
                if element_fields || self.text.is_some() {
                    return Err(invalid(
                        format!(
                            "until={} concerns the whole window: no name, role, element_id or text",
                            until_name(self.until)
                        ),
                        "Leave out the element fields.",
                    ));
                }
                if self.until == Until::Stable {
                    let quiet = self.quiet_ms.unwrap_or(500).clamp(50, 10_000);
                    return Ok(Check::Stable(std::time::Duration::from_millis(quiet)));
                }
                Ok(Check::WindowCloses)
            }
            until => {
                let target = match (&self.element_id, &self.name) {
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            "give either element_id or name, not both",
                            "An element_id names one element already.",
                        ))
                    }
                    (Some(id), None) => Target::Identity(resolve(id)?),
                    (None, name) => {
                        let text = name
                            .as_deref()
                            .map(crate::model::text::normalize)
                            .unwrap_or_default();
                        if text.is_empty() && self.role.is_none() {
                            return Err(invalid(
                                format!("until={} needs an element: name, role or element_id", until_name(until)),
                                "Name the element by a few words of its text (name), its role, or an id with state_id.",
                            ));
                        }
                        Target::Text {
                            text,
                            role: self.role,
                        }
                    }
                };
                let want = match until {
                    Until::Appears => Want::Present,
                    Until::Disappears => Want::Absent,
                    Until::Enabled => Want::Enabled,
                    Until::Checked => Want::Checked,
                    Until::Focused => Want::Focused,
                    Until::ValueIs => Want::ValueIs(text()?),
                    _ => Want::ValueContains(text()?),
                };
                Ok(Check::Element { target, want })
            }
        }
    }
}

fn until_name(until: Until) -> String {
    serde_json::to_value(until)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// One judgement of a condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The condition holds.
    pub met: bool,
    /// What was seen, for the answer (`text "Result" ="0"`, `no element matches "Done"`).
    pub seen: String,
}

/// Whether the element condition holds in `snapshot`.
pub fn judge_element(target: &Target, want: &Want, snapshot: &Snapshot) -> Verdict {
    let has_bounds = snapshot
        .nodes
        .first()
        .and_then(|r| r.bounds)
        .is_some_and(|b| !b.is_empty());
    let on_screen = |n: &&Node| {
        !n.states.contains(State::Offscreen)
            && (!has_bounds || n.bounds.is_some_and(|b| !b.is_empty()))
    };
    let found: Vec<&Node> = snapshot
        .nodes
        .iter()
        .skip(1)
        .filter(on_screen)
        .filter(|n| is_target(snapshot, n, target))
        .collect();
    let describe = |n: &Node| crate::model::outline::describe(snapshot, n);
    let holds = |n: &&&Node| match want {
        Want::Present | Want::Absent => true,
        Want::Enabled => !n.states.contains(State::Disabled),
        Want::Checked => n.states.contains(State::Checked) || n.states.contains(State::Pressed),
        Want::Focused => n.states.contains(State::Focused),
        Want::ValueIs(v) => &crate::model::text::normalize(value_of(snapshot, n).trim()) == v,
        Want::ValueContains(v) => crate::model::text::normalize(&value_of(snapshot, n)).contains(v),
    };
    match (want, found.first()) {
        (Want::Absent, None) => Verdict {
            met: true,
            seen: format!("no {} on screen", target.describe()),
        },
        (Want::Absent, Some(n)) => Verdict {
            met: false,
            seen: format!("still on screen: {}", describe(n)),
        },
        (_, None) => Verdict {
            met: false,
            seen: format!("no {} on screen", target.describe()),
        },
        (_, Some(first)) => match found.iter().find(holds) {
            Some(n) => Verdict {
                met: true,
                seen: describe(n),
            },
            None => Verdict {
                met: false,
                seen: describe(first),
            },
        },
    }
}

fn is_target(snapshot: &Snapshot, node: &Node, target: &Target) -> bool {
    match target {
        Target::Identity(identity) => &node.identity == identity,
        Target::Text { text, role } => {
            role.is_none_or(|r| r == node.role)
                && (text.is_empty()
                    || [
                        Some(crate::model::outline::shown_name(snapshot, node).as_str()),
                        node.value.as_deref(),
                        node.description.as_deref(),
                    ]
                    .into_iter()
                    .flatten()
                    .any(|t| crate::model::text::normalize(t).contains(text.as_str())))
        }
    }
}

/// The element's value, or its shown name when it has none (a label's text).
fn value_of(snapshot: &Snapshot, node: &Node) -> String {
    match node.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => v.to_owned(),
        None => crate::model::outline::shown_name(snapshot, node),
    }
}

/// Whether a window condition holds in the window list; `Some(window)` names the window that
/// appeared. `watched` is the window `WindowCloses` watches.
pub fn judge_windows<'a>(
    check: &Check,
    watched: Option<&WindowId>,
    windows: &'a [WindowInfo],
) -> (Verdict, Option<&'a WindowInfo>) {
    match check {
        Check::WindowAppears(title) => {
            let hit = windows
                .iter()
                .find(|w| crate::model::text::normalize(&w.title).contains(title.as_str()));
            let seen = match hit {
                Some(w) => format!("window \"{}\" ({})", w.title, w.id.0),
                None => format!("{} windows listed, none with that title", windows.len()),
            };
            (
                Verdict {
                    met: hit.is_some(),
                    seen,
                },
                hit,
            )
        }
        Check::WindowCloses => {
            let open = watched.is_some_and(|id| windows.iter().any(|w| &w.id == id));
            (
                Verdict {
                    met: !open,
                    seen: if open {
                        "the window is still listed"
                    } else {
                        "the window is gone"
                    }
                    .into(),
                },
                None,
            )
        }
        _ => (
            Verdict {
                met: false,
                seen: String::new(),
            },
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::element::{DesktopInstance, StateSet};
    use crate::model::geometry::Rect;

    fn node(role: Role, name: &str, value: Option<&str>, parent: Option<u32>) -> Node {
        let mut n = Node::new(role, ElementIdentity(format!("id-{name}")));
        n.name = name.into();
        n.value = value.map(str::to_owned);
        n.parent = parent;
        n.bounds = Some(Rect::new(1, 2, 30, 20));
        n
    }

    fn snapshot(mut nodes: Vec<Node>) -> Snapshot {
        let mut root = node(Role::Window, "App", None, None);
        root.bounds = Some(Rect::new(0, 0, 300, 200));
        root.children = (1..=nodes.len() as u32).collect();
        nodes.insert(0, root);
        Snapshot {
            window: WindowInfo {
                id: WindowId("x11:0x1".into()),
                app: "app".into(),
                title: "App".into(),
                pid: None,
                bounds: None,
                focused: true,
                minimized: false,
                no_tree: false,
            },
            desktop: DesktopInstance("d".into()),
            nodes,
            truncated: None,
            elapsed_ms: 1,
            read: Default::default(),
        }
    }

    fn cond(until: Until) -> Condition {
        Condition {
            until,
            name: None,
            role: None,
            element_id: None,
            text: None,
            quiet_ms: None,
        }
    }

    fn no_ids(_: &str) -> Result<ElementIdentity> {
        Err(Error::new(ErrorCode::InvalidArgument, "no state"))
    }

    fn judge(c: &Condition, s: &Snapshot) -> Verdict {
        match c.check(no_ids).unwrap() {
            Check::Element { target, want } => judge_element(&target, &want, s),
            other => panic!("not an element check: {other:?}"),
        }
    }

    #[test]
    fn value_conditions_read_the_value_or_the_name() {
        let s = snapshot(vec![
            node(Role::Label, "Result: 42", None, Some(0)),
            node(Role::TextInput, "Amount", Some(" 7 "), Some(0)),
        ]);
        let c = Condition {
            name: Some("amount".into()),
            text: Some("7".into()),
            ..cond(Until::ValueIs)
        };
        assert!(judge(&c, &s).met);
        let c = Condition {
            name: Some("result".into()),
            text: Some("42".into()),
            ..cond(Until::ValueContains)
        };
        assert!(judge(&c, &s).met);
        let c = Condition {
            name: Some("result".into()),
            text: Some("43".into()),
            ..cond(Until::ValueContains)
        };
        let v = judge(&c, &s);
        assert!(!v.met);
        assert_eq!(v.seen, "label \"Result: 42\"");
    }

    #[test]
    fn elements_off_screen_do_not_count() {
        let mut hidden = node(Role::Button, "Done", None, Some(0));
        hidden.states = StateSet::EMPTY.with(State::Offscreen);
        let mut unplaced = node(Role::Button, "Done", None, Some(0));
        unplaced.bounds = None;
        let s = snapshot(vec![hidden, unplaced]);
        let appears = Condition {
            name: Some("Done".into()),
            ..cond(Until::Appears)
        };
        assert!(!judge(&appears, &s).met);
        let gone = Condition {
            until: Until::Disappears,
            ..appears
        };
        assert!(judge(&gone, &s).met);
    }

    #[test]
    fn states_and_roles() {
        let mut ok = node(Role::Button, "OK", None, Some(0));
        ok.states = StateSet::EMPTY.with(State::Disabled);
        let mut check = node(Role::CheckBox, "Agree", None, Some(0));
        check.states = StateSet::EMPTY.with(State::Checked).with(State::Focused);
        let s = snapshot(vec![ok, check]);
        let enabled = Condition {
            name: Some("ok".into()),
            ..cond(Until::Enabled)
        };
        let v = judge(&enabled, &s);
        assert!(!v.met);
        assert!(v.seen.contains("disabled"), "{}", v.seen);
        let checked = Condition {
            role: Some(Role::CheckBox),
            ..cond(Until::Checked)
        };
        assert!(judge(&checked, &s).met);
        let focused = Condition {
            role: Some(Role::Button),
            ..cond(Until::Focused)
        };
        assert!(!judge(&focused, &s).met);
    }

    #[test]
    fn ill_formed_conditions_name_the_missing_field() {
        let cases = [
            (cond(Until::Appears), "needs an element"),
            (cond(Until::ValueIs), "needs an element"),
            (
                Condition {
                    name: Some("x".into()),
                    ..cond(Until::ValueIs)
                },
                "needs text",
            ),
            (cond(Until::WindowAppears), "needs text"),
            (
                Condition {
                    name: Some("x".into()),
                    ..cond(Until::Stable)
                },
                "whole window",
            ),
            (
                Condition {
                    name: Some("x".into()),
                    element_id: Some("e1".into()),
                    ..cond(Until::Appears)
                },
                "not both",
            ),
            (
                Condition {
                    name: Some("x".repeat(201)),
                    ..cond(Until::Appears)
                },
                "more than 200",
            ),
        ];
        for (c, says) in cases {
            let e = c.check(no_ids).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert!(e.message.contains(says), "{c:?}: {}", e.message);
        }
    }

    #[test]
    fn window_conditions() {
        let w = |id: &str, title: &str| WindowInfo {
            id: WindowId(id.into()),
            app: "a".into(),
            title: title.into(),
            pid: None,
            bounds: None,
            focused: false,
            minimized: false,
            no_tree: false,
        };
        let windows = [w("x11:0x1", "Editor"), w("x11:0x2", "Save As")];
        let appears = Condition {
            text: Some("save".into()),
            ..cond(Until::WindowAppears)
        }
        .check(no_ids)
        .unwrap();
        let (v, hit) = judge_windows(&appears, None, &windows);
        assert!(v.met);
        assert_eq!(hit.map(|w| w.id.0.as_str()), Some("x11:0x2"));
        let closes = cond(Until::WindowCloses).check(no_ids).unwrap();
        assert!(
            !judge_windows(&closes, Some(&WindowId("x11:0x1".into())), &windows)
                .0
                .met
        );
        assert!(
            judge_windows(&closes, Some(&WindowId("x11:0x9".into())), &windows)
                .0
                .met
        );
    }
}
