//! A step checked against the observation it acts on, into the step runner's [`Plan`]: ids
//! exist and were on screen, points lie inside the window, texts and key combinations are
//! within bounds, so nothing is refused after the state is used.

use cu_core::model::backend::MouseButton;
use cu_core::model::geometry::Point;
use cu_core::model::keys::{Combo, Modifiers};
use cu_core::policy::activation;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};

use super::step::Step;
use crate::steps::{center, Kind, Plan};

/// Most scroll notches one step sends each way.
const MAX_SCROLL: u32 = 100;

pub(super) fn bad(step: usize, message: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("step {step}: {message}"),
    )
    .with_details(serde_json::json!({ "step": step }))
}

/// Validates one step against the state: ids exist, points lie inside the window, texts and
/// key combinations are within bounds, so nothing is refused after the state is used.
pub(super) fn plan(step: usize, spec: &Step, state: &SavedState, max_chars: usize) -> Result<Plan> {
    let element = |id: Option<&str>| -> Result<Option<SavedElement>> {
        match id {
            None => Ok(None),
            Some(id) if id.starts_with('@') => Err(bad(
                step,
                format!("{id:?}: use element ids as gui_state returned them (e7), without @"),
            )),
            Some(id) => {
                let element = state.element(id).map_err(|e| Error {
                    message: format!("step {step}: {}", e.message),
                    ..e
                })?;
                // An element outside the viewport is scrolled into view when the step runs
                // (`into_view`); a drag's ends are refused below.
                Ok(Some(element.clone()))
            }
        }
    };
    let bounds = state.window_rect();
    let point = |x: Option<i32>, y: Option<i32>| -> Result<Option<Point>> {
        match (x, y) {
            (None, None) => Ok(None),
            (Some(x), Some(y)) => {
                let p = Point::new(x, y);
                match bounds {
                    Some(b) if b.contains(p) => Ok(Some(p)),
                    Some(b) => Err(Error::new(
                        ErrorCode::OutOfWindow,
                        format!(
                            "step {step}: ({x}, {y}) is outside the window (0, 0, {}, {})",
                            b.width, b.height
                        ),
                    )),
                    None => Err(Error::new(
                        ErrorCode::ActionNotSupported,
                        "this window's position is unknown; use element ids",
                    )),
                }
            }
            _ => Err(bad(step, "give both x and y")),
        }
    };
    // An element or a point, exactly one of them.
    let target = |id: Option<&str>, x: Option<i32>, y: Option<i32>| -> Result<Target> {
        match (element(id)?, point(x, y)?) {
            (Some(element), None) => Ok(Target::Element(element)),
            (None, Some(at)) => Ok(Target::Point(at)),
            _ => Err(bad(step, "give either element_id or x and y")),
        }
    };
    let pointer = |kind: Kind, (id, x, y): (Option<&str>, Option<i32>, Option<i32>)| {
        Ok::<_, Error>(match target(id, x, y)? {
            Target::Element(element) => Plan::Element { kind, element },
            Target::Point(at) => Plan::Point { kind, at },
        })
    };
    let held = |modifiers: &Option<Combo>| -> Result<Modifiers> {
        modifiers.as_ref().map_or(Ok(Modifiers::default()), |m| {
            Modifiers::of(m).map_err(|e| bad(step, format!("modifiers: {e}")))
        })
    };
    let need_element = |id: &str| -> Result<SavedElement> {
        element(Some(id))?.ok_or_else(|| bad(step, format!("{} needs element_id", spec.name())))
    };
    match spec {
        Step::Click(p) => {
            let button = p.button.unwrap_or_default();
            let count = p.count.unwrap_or(1);
            if !(1..=3).contains(&count) {
                return Err(bad(step, "count is 1, 2 or 3"));
            }
            let kind = Kind::press(button, count, held(&p.modifiers)?);
            pointer(kind, (p.element_id.as_deref(), p.x, p.y))
        }
        Step::DoubleClick(p) | Step::RightClick(p) => {
            let (button, count) = match spec {
                Step::DoubleClick(_) => (MouseButton::Left, 2),
                _ => (MouseButton::Right, 1),
            };
            let kind = Kind::press(button, count, held(&p.modifiers)?);
            pointer(kind, (p.element_id.as_deref(), p.x, p.y))
        }
        Step::MouseDown(p) | Step::MouseUp(p) => {
            if p.count.is_some() {
                return Err(bad(step, format!("{} takes no count", spec.name())));
            }
            let kind = Kind::Button {
                button: p.button.unwrap_or_default(),
                pressed: matches!(spec, Step::MouseDown(_)),
                held: held(&p.modifiers)?,
            };
            pointer(kind, (p.element_id.as_deref(), p.x, p.y))
        }
        Step::Move(p) => {
            if p.modifiers.is_some() {
                return Err(bad(step, "move takes no modifiers"));
            }
            pointer(Kind::Move, (p.element_id.as_deref(), p.x, p.y))
        }
        Step::Scroll(s) => {
            let (dx, dy) = (s.dx.unwrap_or(0), s.dy.unwrap_or(3));
            if dx.unsigned_abs() > MAX_SCROLL || dy.unsigned_abs() > MAX_SCROLL {
                return Err(bad(
                    step,
                    format!("scroll at most {MAX_SCROLL} notches each way"),
                ));
            }
            let kind = Kind::Scroll {
                dx,
                dy,
                held: held(&s.modifiers)?,
            };
            pointer(kind, (s.element_id.as_deref(), s.x, s.y))
        }
        Step::Drag(d) => {
            let at = |t: Target| {
                match t {
                Target::Element(e) if e.offscreen => Err(Error::new(
                    ErrorCode::ElementNotVisible,
                    format!(
                        "step {step}: {} ({} {:?}) was not on screen when observed: scroll to it first",
                        e.id, e.role, e.name
                    ),
                )),
                Target::Element(e) => center(&e),
                Target::Point(p) => Ok(p),
            }
            };
            let from = at(target(d.element_id.as_deref(), d.x, d.y)?)?;
            let to = match (d.to_element_id.as_deref(), d.to_x, d.to_y) {
                (Some(_), None, None) | (None, Some(_), Some(_)) => {
                    at(target(d.to_element_id.as_deref(), d.to_x, d.to_y)?)?
                }
                _ => return Err(bad(step, "drag needs to_element_id or to_x and to_y")),
            };
            Ok(Plan::Drag {
                from,
                to,
                button: d.button.unwrap_or_default(),
                held: held(&d.modifiers)?,
            })
        }
        Step::Type { text, element_id } => {
            if text.is_empty() {
                return Err(bad(step, "type needs text"));
            }
            within_limit(step, text, max_chars)?;
            Ok(Plan::Type {
                text: text.clone(),
                into: element(element_id.as_deref())?,
            })
        }
        Step::Key { keys } => {
            if keys.keys().len() > activation::MAX_COMBO_KEYS {
                return Err(bad(
                    step,
                    format!(
                        "a key combination holds at most {} keys",
                        activation::MAX_COMBO_KEYS
                    ),
                ));
            }
            Ok(Plan::Key { keys: keys.clone() })
        }
        Step::SetValue { element_id, text } => {
            within_limit(step, text, max_chars)?;
            Ok(Plan::SetValue {
                element: need_element(element_id)?,
                value: text.clone(),
            })
        }
        Step::Focus { element_id } => Ok(Plan::Focus {
            element: need_element(element_id)?,
        }),
        Step::Wait { ms } => {
            let ms = ms.unwrap_or(500);
            if ms > 10_000 {
                return Err(bad(step, "wait at most 10000 ms"));
            }
            Ok(Plan::Wait { ms })
        }
    }
}

pub(super) fn within_limit(step: usize, text: &str, max_chars: usize) -> Result<()> {
    let chars = text.chars().count();
    if chars > max_chars {
        return Err(Error::new(
            ErrorCode::TextTooLong,
            format!("step {step}: text has {chars} characters; at most {max_chars} are typed"),
        )
        .with_details(serde_json::json!({ "step": step })));
    }
    Ok(())
}

/// A pointer step's validated target.
enum Target {
    Element(SavedElement),
    Point(Point),
}
