//! The step runner every acting tool shares (`gui_action`, `click`, `type_text`): a validated
//! step ([`Plan`]) is sent through the live gate ([`Sender`]), semantic first ([`run`]); how it
//! was done is typed ([`Via`]), and a failed call knows whether input went out ([`Failure`]).
//! What the step did is the effect watch's ([`crate::effect`]).

use std::time::Duration;

use cu_core::model::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::model::geometry::Point;
use cu_core::model::keys::Combo;
use cu_core::model::keys::Modifiers;
use cu_core::model::role::Role;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};

pub(crate) use crate::how::{center, Ran, Via};

use crate::guard::Sender;
use crate::service::Outcome;
use crate::service::Service;

/// A step after validation.
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    Element {
        kind: Kind,
        element: SavedElement,
    },
    Point {
        kind: Kind,
        at: Point,
    },
    Drag {
        from: Point,
        to: Point,
        button: MouseButton,
        held: Modifiers,
    },
    Type {
        text: String,
        into: Option<SavedElement>,
    },
    Key {
        keys: Combo,
    },
    SetValue {
        element: SavedElement,
        value: String,
    },
    Focus {
        element: SavedElement,
    },
    Wait {
        ms: u64,
    },
}

impl Plan {
    /// Whether the step presses an element whose label says a window follows: a trailing
    /// ellipsis ("Rename...", "Save As…"), the convention for a command that asks first.
    pub(crate) fn announces_window(&self) -> bool {
        match self {
            Plan::Element {
                kind: Kind::Click | Kind::DoubleClick,
                element,
            } => {
                let name = element.name.trim_end();
                name.ends_with("...") || name.ends_with('…')
            }
            _ => false,
        }
    }
}

/// What a pointer step does at its element or point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A plain left click: an element's semantic press when it has one.
    Click,
    DoubleClick,
    RightClick,
    /// Any other click: another button, a triple click, modifiers held; always at the point.
    Press {
        button: MouseButton,
        count: u8,
        held: Modifiers,
    },
    /// One button pressed or released alone (`mouse_down`, `mouse_up`).
    Button {
        button: MouseButton,
        pressed: bool,
        held: Modifiers,
    },
    Move,
    Scroll {
        dx: i32,
        dy: i32,
        held: Modifiers,
    },
}

impl Kind {
    /// A click of `button`, `count` times, with `held` modifiers: the plain kinds where they
    /// apply (a plain left click may be a semantic press), else `Press`.
    pub(crate) fn press(button: MouseButton, count: u8, held: Modifiers) -> Kind {
        match (button, count, held.is_empty()) {
            (MouseButton::Left, 1, true) => Kind::Click,
            (MouseButton::Left, 2, true) => Kind::DoubleClick,
            (MouseButton::Right, 1, true) => Kind::RightClick,
            _ => Kind::Press {
                button,
                count,
                held,
            },
        }
    }

    /// Whether it presses a button (what the gate judges and what can move focus).
    pub(crate) fn presses(self) -> bool {
        !matches!(self, Kind::Move | Kind::Scroll { .. })
    }

    /// Its wire name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Click | Kind::Press { .. } => "click",
            Kind::DoubleClick => "double_click",
            Kind::RightClick => "right_click",
            Kind::Button { pressed: true, .. } => "mouse_down",
            Kind::Button { pressed: false, .. } => "mouse_up",
            Kind::Move => "move",
            Kind::Scroll { .. } => "scroll",
        }
    }
}

/// A failed acting call: the wire error, and whether input went out before it (which decides
/// its [`Outcome`], with no reading of the error's details).
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) error: Error,
    pub(crate) sent: bool,
}

impl From<Error> for Failure {
    /// A failure before any input.
    fn from(error: Error) -> Failure {
        Failure { error, sent: false }
    }
}

impl Failure {
    /// A failure after `sender` was used: it knows whether input went out.
    pub(crate) fn after(sender: &Sender<'_>, error: Error) -> Failure {
        Failure {
            error,
            sent: sender.sent_anything(),
        }
    }

    pub(crate) fn outcome(&self) -> Outcome {
        Outcome::of_failure(self.sent)
    }
}

/// Steps that send synthetic input (and so activate the window first): pointer and keyboard
/// steps, and element steps other than a click on a control (which is pressed semantically;
/// static text has no action and is clicked at its centre).
pub(crate) fn sends_input(plan: &Plan) -> bool {
    match plan {
        Plan::Point { .. } | Plan::Drag { .. } | Plan::Type { .. } | Plan::Key { .. } => true,
        Plan::Element { kind, element } => *kind != Kind::Click || !pressed_semantically(element),
        Plan::SetValue { .. } | Plan::Focus { .. } | Plan::Wait { .. } => false,
    }
}

/// Whether a click on `element` is expected to be its semantic press (anything else with an
/// action is tried semantically too, falling back to its centre). A cell's click is always a
/// real click at its centre: its actions activate or edit the row (Thunar's "activate" opens
/// the file), where a person's click selects it.
fn pressed_semantically(element: &SavedElement) -> bool {
    element.role.is_interactive() && element.role != Role::Cell
}

/// `event` with `held` modifiers held around it, when there are any.
fn holding(held: Modifiers, event: InputEvent) -> InputEvent {
    if held.is_empty() {
        event
    } else {
        InputEvent::Held {
            modifiers: held,
            event: Box::new(event),
        }
    }
}

fn pointer(kind: Kind, at: Point) -> InputEvent {
    match kind {
        Kind::Press {
            button,
            count,
            held,
        } => holding(held, InputEvent::Click { at, button, count }),
        Kind::Button {
            button,
            pressed,
            held,
        } => holding(
            held,
            InputEvent::Button {
                at,
                button,
                pressed,
            },
        ),
        Kind::Click => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 1,
        },
        Kind::DoubleClick => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 2,
        },
        Kind::RightClick => InputEvent::Click {
            at,
            button: MouseButton::Right,
            count: 1,
        },
        Kind::Move => InputEvent::Move { at },
        Kind::Scroll { dx, dy, held } => holding(held, InputEvent::Scroll { at, dx, dy }),
    }
}

/// Runs one step through `sender` (which judges every piece of input live); returns how it
/// was done and what was checked to have taken.
pub(crate) async fn run(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    plan: &Plan,
) -> Result<Ran> {
    match plan {
        Plan::Type { text, into } => {
            let focused = match into {
                Some(element) => {
                    let element =
                        &crate::into_view::on_screen(service, sender, state, element).await?;
                    sender.prejudge_text(&element.identity, text).await?;
                    crate::taken::focus(service, sender, state, element).await?;
                    Some(true)
                }
                None => None,
            };
            sender.text(text).await?;
            Ok(Ran {
                focus_moved: focused,
                ..Ran::from(Via::Keyboard)
            })
        }
        Plan::Focus { element } => {
            let element = &crate::into_view::on_screen(service, sender, state, element).await?;
            let via = crate::taken::focus(service, sender, state, element).await?;
            Ok(Ran {
                focus_moved: Some(true),
                ..Ran::from(via)
            })
        }
        Plan::SetValue { element, value } => {
            let element = &crate::into_view::on_screen(service, sender, state, element).await?;
            crate::taken::set_value(service, sender, state, element, value).await
        }
        Plan::Element { kind, element } => {
            let element = &crate::into_view::on_screen(service, sender, state, element).await?;
            // A click on a text field is for typing into it: keyboard focus is checked to have
            // moved there (Calc's Name Box took a semantic click without it, and the letters
            // after it went into a cell).
            if *kind == Kind::Click
                && matches!(
                    element.role,
                    Role::TextInput | Role::PasswordInput | Role::TextArea
                )
            {
                let via = crate::taken::focus(service, sender, state, element).await?;
                return Ok(Ran {
                    focus_moved: Some(true),
                    ..Ran::from(via)
                });
            }
            if *kind == Kind::Click && element.role != Role::Cell {
                match sender
                    .perform(&element.identity, &SemanticAction::Invoke)
                    .await
                {
                    Ok(()) => return Ok(Via::Semantic.into()),
                    Err(e) if e.code != ErrorCode::ActionNotSupported => return Err(e),
                    Err(_) => {}
                }
            }
            let at = center(element)?;
            service.check_geometry(&state.window, state).await?;
            sender.pointer(&pointer(*kind, at)).await?;
            Ok(Via::Coordinates.into())
        }
        Plan::Point { kind, at } => {
            sender.pointer(&pointer(*kind, *at)).await?;
            Ok(Via::Coordinates.into())
        }
        Plan::Drag {
            from,
            to,
            button,
            held,
        } => {
            let drag = InputEvent::Drag {
                from: *from,
                to: *to,
                button: *button,
            };
            sender.pointer(&holding(*held, drag)).await?;
            Ok(Via::Coordinates.into())
        }
        Plan::Key { keys } => {
            sender.key(keys).await?;
            Ok(Via::Keyboard.into())
        }
        Plan::Wait { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            Ok(Via::Wait.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use cu_core::model::element::ElementIdentity;
    use cu_core::model::role::Role;
    use cu_core::store::state_registry::SavedElement;

    use super::{Kind, Plan};

    fn press(kind: Kind, name: &str) -> Plan {
        Plan::Element {
            kind,
            element: SavedElement {
                id: "e1".into(),
                identity: ElementIdentity("a".into()),
                role: Role::MenuItem,
                name: name.into(),
                bounds: None,
                focused: false,
                offscreen: false,
            },
        }
    }

    /// A busy machine showed Thunar's "Rename..." dialog after the menu's closing was answered
    /// `changed`: a label that announces a window has its effect waited out for that window.
    #[test]
    fn a_trailing_ellipsis_announces_a_window() {
        assert!(press(Kind::Click, "Rename...").announces_window());
        assert!(press(Kind::DoubleClick, "Save As…").announces_window());
        assert!(!press(Kind::Click, "Rename").announces_window());
        assert!(!press(Kind::RightClick, "Rename...").announces_window());
    }
}
