//! Window ids and element identities on macOS, as text that survives the process.
//!
//! A window is its `CGWindowID` (`cgwin:1234`), fixed for the window's life. AX elements have no
//! lasting id, so an element is its index path from the window (`0.3.1`), checked when resolved
//! against the role and name it had: a path that now leads elsewhere is refused, never acted on.

use cu_core::model::element::ElementIdentity;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

/// The window id of a `CGWindowID`.
pub fn window_id(number: u32) -> WindowId {
    WindowId(format!("cgwin:{number}"))
}

/// The `CGWindowID` a window id names.
pub fn parse_window_id(id: &WindowId) -> Result<u32> {
    id.as_str()
        .strip_prefix("cgwin:")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n != 0)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!("{id} is not a window id of this macOS desktop"),
            )
        })
}

/// Where an element was and what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementPath {
    /// Child indexes from the window element.
    pub path: Vec<u32>,
    /// Its `AXRole`.
    pub role: String,
    /// A hash of its name, to notice a different element at the same place.
    pub name_hash: u32,
}

/// FNV-1a of the name: short, stable across processes and versions.
pub fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The identity of an element.
pub fn element_identity(p: &ElementPath) -> ElementIdentity {
    let path: Vec<String> = p.path.iter().map(u32::to_string).collect();
    ElementIdentity(format!(
        "ax:{}|{}|{:08x}",
        path.join("."),
        p.role,
        p.name_hash
    ))
}

/// The path, role and name hash an identity names.
pub fn parse_element_identity(identity: &ElementIdentity) -> Result<ElementPath> {
    let parse = || -> Option<ElementPath> {
        let mut parts = identity.0.strip_prefix("ax:")?.splitn(3, '|');
        let path = parts.next()?;
        let path = if path.is_empty() {
            Vec::new()
        } else {
            path.split('.')
                .map(|i| i.parse().ok())
                .collect::<Option<_>>()?
        };
        let role = parts.next()?.to_owned();
        let name_hash = u32::from_str_radix(parts.next()?, 16).ok()?;
        Some(ElementPath {
            path,
            role,
            name_hash,
        })
    };
    parse().ok_or_else(|| {
        Error::new(
            ErrorCode::ElementNotFound,
            format!("{:?} is not an AX element identity", identity.0),
        )
    })
}

/// Checks the element found at a path is still the one observed.
pub fn check_same(expected: &ElementPath, role: &str, name: &str) -> Result<()> {
    if expected.role == role && expected.name_hash == name_hash(name) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ElementNotFound,
        format!(
            "the element observed there ({}) is gone: a {role} named {name:?} is in its place",
            expected.role
        ),
    )
    .with_suggestion("Observe again; the window changed."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_ids_round_trip() {
        assert_eq!(window_id(4711).as_str(), "cgwin:4711");
        assert_eq!(parse_window_id(&window_id(4711)).ok(), Some(4711));
        for bad in ["hwnd:0x1", "cgwin:", "cgwin:0", "cgwin:x"] {
            assert!(parse_window_id(&WindowId::from(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_round_trip_and_a_changed_element_is_refused() {
        let p = ElementPath {
            path: vec![0, 3, 1],
            role: "AXButton".into(),
            name_hash: name_hash("Send"),
        };
        let id = element_identity(&p);
        assert!(id.0.starts_with("ax:0.3.1|AXButton|"));
        assert_eq!(parse_element_identity(&id).ok(), Some(p.clone()));
        let root = ElementPath {
            path: vec![],
            role: "AXWindow".into(),
            name_hash: 1,
        };
        assert_eq!(
            parse_element_identity(&element_identity(&root)).ok(),
            Some(root)
        );
        assert!(check_same(&p, "AXButton", "Send").is_ok());
        let moved = check_same(&p, "AXButton", "Delete").err();
        assert_eq!(moved.map(|e| e.code), Some(ErrorCode::ElementNotFound));
        assert!(parse_element_identity(&ElementIdentity("uia:2a".into())).is_err());
    }
}
