//! Window ids and element identities on Windows, as text that survives the process.
//!
//! A window is its `HWND` (`hwnd:0x1a2b3c`), valid for the window's life. An element is its UI
//! Automation runtime id (`uia:2a.1a2b3c.4`), which UI Automation keeps for the element's life
//! and which a later process finds again with a `RuntimeId` property condition.

use cu_core::model::element::ElementIdentity;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

/// The window id of an `HWND` value.
pub fn window_id(hwnd: isize) -> WindowId {
    WindowId(format!("hwnd:0x{:x}", hwnd as usize))
}

/// The `HWND` value a window id names.
pub fn parse_window_id(id: &WindowId) -> Result<isize> {
    id.as_str()
        .strip_prefix("hwnd:0x")
        .and_then(|hex| usize::from_str_radix(hex, 16).ok())
        .filter(|v| *v != 0)
        .map(|v| v as isize)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!("{id} is not a window id of this Windows desktop"),
            )
        })
}

/// The identity of an element with this runtime id.
pub fn element_identity(runtime_id: &[i32]) -> ElementIdentity {
    let parts: Vec<String> = runtime_id
        .iter()
        .map(|v| format!("{:x}", *v as u32))
        .collect();
    ElementIdentity(format!("uia:{}", parts.join(".")))
}

/// The runtime id an identity names.
pub fn parse_element_identity(identity: &ElementIdentity) -> Result<Vec<i32>> {
    let parse = || -> Option<Vec<i32>> {
        let body = identity.0.strip_prefix("uia:")?;
        let ids: Option<Vec<i32>> = body
            .split('.')
            .map(|p| u32::from_str_radix(p, 16).ok().map(|v| v as i32))
            .collect();
        ids.filter(|v| !v.is_empty())
    };
    parse().ok_or_else(|| {
        Error::new(
            ErrorCode::ElementNotFound,
            format!("{:?} is not a UI Automation element identity", identity.0),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_ids_round_trip_and_refuse_others() {
        let id = window_id(0x1a_2b3c);
        assert_eq!(id.as_str(), "hwnd:0x1a2b3c");
        assert_eq!(parse_window_id(&id).ok(), Some(0x1a_2b3c));
        for bad in ["x11:0x1c00007", "hwnd:0x", "hwnd:0x0", "hwnd:zz"] {
            assert_eq!(
                parse_window_id(&WindowId::from(bad)).err().map(|e| e.code),
                Some(ErrorCode::WindowNotFound),
                "{bad}"
            );
        }
    }

    #[test]
    fn runtime_ids_round_trip_including_negative_parts() {
        // UiaAppendRuntimeId (3) followed by provider parts; parts may be negative.
        let runtime_id = [42, 0x1a_2b3c, 4, -7];
        let identity = element_identity(&runtime_id);
        assert_eq!(identity.0, "uia:2a.1a2b3c.4.fffffff9");
        assert_eq!(
            parse_element_identity(&identity).ok(),
            Some(runtime_id.to_vec())
        );
        assert!(parse_element_identity(&ElementIdentity(":1.5|/obj".into())).is_err());
        assert!(parse_element_identity(&ElementIdentity("uia:".into())).is_err());
    }
}
