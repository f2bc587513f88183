//! The window list: the window server's windows joined with the apps' AX windows.

use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::dictionary::CFDictionary;
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use core_graphics::window::{
    copy_window_info, kCGNullWindowID, kCGWindowBounds, kCGWindowIsOnscreen, kCGWindowLayer,
    kCGWindowListExcludeDesktopElements, kCGWindowListOptionAll, kCGWindowName, kCGWindowNumber,
    kCGWindowOwnerName, kCGWindowOwnerPID,
};
use cu_core::model::geometry::Rect;

use super::element::{AxElement, AxValue};
use crate::listing::{self, AxWindow, CgWindow};

/// One listed window: the window server's entry, its AX element and what AX says.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub cg: CgWindow,
    pub element: AxElement,
    pub title: String,
    pub minimized: bool,
    pub focused: bool,
}

/// The normal windows of every app, front to back.
pub(super) fn list() -> Vec<Listed> {
    list_where(|_| true)
}

/// The window with this `CGWindowID`, as it is now.
pub(super) fn find(number: u32) -> Option<Listed> {
    let pid = cg_windows().into_iter().find(|w| w.number == number)?.pid;
    list_where(|p| p == pid)
        .into_iter()
        .find(|l| l.cg.number == number)
}

/// The `CGWindowID` of the frontmost normal window.
pub(super) fn front_window() -> Option<u32> {
    cg_windows()
        .into_iter()
        .find(|w| w.layer == 0 && w.on_screen)
        .map(|w| w.number)
}

fn list_where(keep_pid: impl Fn(i32) -> bool) -> Vec<Listed> {
    let all = cg_windows();
    let front = all
        .iter()
        .find(|w| w.layer == 0 && w.on_screen)
        .map(|w| w.number);
    let cg: Vec<CgWindow> = all.into_iter().filter(|w| keep_pid(w.pid)).collect();
    let mut elements: Vec<(i32, Vec<(AxWindow, AxElement)>)> = Vec::new();
    let joined = listing::join(&cg, |pid| {
        let windows = ax_windows(pid);
        let ax = windows.iter().map(|(w, _)| w.clone()).collect();
        elements.push((pid, windows));
        ax
    });
    joined
        .into_iter()
        .filter_map(|(i, ax)| {
            let element = elements
                .iter()
                .find(|(pid, _)| *pid == cg[i].pid)?
                .1
                .iter()
                .find(|(w, _)| *w == ax)?
                .1
                .clone();
            Some(Listed {
                cg: cg[i].clone(),
                element,
                title: ax.title,
                minimized: ax.minimized,
                focused: Some(cg[i].number) == front && !ax.minimized,
            })
        })
        .collect()
}

fn cg_windows() -> Vec<CgWindow> {
    let Some(info) = copy_window_info(
        kCGWindowListOptionAll | kCGWindowListExcludeDesktopElements,
        kCGNullWindowID,
    ) else {
        return Vec::new();
    };
    info.iter()
        .filter_map(|raw| {
            // SAFETY: each item of the window-info array is a CFDictionary (get rule: the
            // array keeps it alive; wrapping retains it).
            let dict: CFDictionary<CFString, CFType> =
                unsafe { CFDictionary::wrap_under_get_rule((*raw).cast()) };
            cg_window(&dict)
        })
        .collect()
}

fn cg_window(dict: &CFDictionary<CFString, CFType>) -> Option<CgWindow> {
    // SAFETY: the kCGWindow* keys are immutable CFString constants of CoreGraphics.
    let key = |k| unsafe { CFString::wrap_under_get_rule(k) };
    let get = |k| dict.find(key(k)).map(|v| v.clone());
    let number = |k| {
        get(k)
            .and_then(|v| v.downcast::<CFNumber>())
            .and_then(|n| n.to_i64())
    };
    let text = |k| {
        get(k)
            .and_then(|v| v.downcast::<CFString>())
            .map(|s| s.to_string())
            .unwrap_or_default()
    };
    // SAFETY: see `key`.
    let (k_number, k_pid, k_owner, k_name, k_layer, k_bounds, k_onscreen) = unsafe {
        (
            kCGWindowNumber,
            kCGWindowOwnerPID,
            kCGWindowOwnerName,
            kCGWindowName,
            kCGWindowLayer,
            kCGWindowBounds,
            kCGWindowIsOnscreen,
        )
    };
    let bounds = get(k_bounds)
        .and_then(|v| v.downcast::<CFDictionary>())
        .and_then(|b| {
            // SAFETY: the bounds dictionary maps CFString keys to CFNumbers (CGRectMakeWithDictionaryRepresentation's format).
            let b: CFDictionary<CFString, CFType> =
                unsafe { CFDictionary::wrap_under_get_rule(b.as_concrete_TypeRef()) };
            let f = |k: &str| {
                b.find(CFString::new(k))
                    .and_then(|v| v.downcast::<CFNumber>())
                    .and_then(|n| n.to_f64())
            };
            Some(Rect::new(
                f("X")?.round() as i32,
                f("Y")?.round() as i32,
                f("Width")?.round() as i32,
                f("Height")?.round() as i32,
            ))
        })?;
    Some(CgWindow {
        number: u32::try_from(number(k_number)?).ok()?,
        pid: i32::try_from(number(k_pid)?).ok()?,
        owner: text(k_owner),
        name: text(k_name),
        layer: number(k_layer).unwrap_or(0) as i32,
        bounds,
        on_screen: get(k_onscreen)
            .and_then(|v| v.downcast::<CFBoolean>())
            .is_some_and(bool::from),
    })
}

/// The app's AX windows with what the join compares.
fn ax_windows(pid: i32) -> Vec<(AxWindow, AxElement)> {
    let Some(app) = AxElement::application(pid) else {
        return Vec::new();
    };
    let Ok(AxValue::Elements(windows)) = app.attribute("AXWindows") else {
        return Vec::new();
    };
    windows
        .into_iter()
        .map(|w| {
            let title = match w.attribute("AXTitle") {
                Ok(AxValue::Text(t)) => t,
                _ => String::new(),
            };
            let minimized = matches!(w.attribute("AXMinimized"), Ok(AxValue::Bool(true)));
            let bounds = w.frame();
            (
                AxWindow {
                    title,
                    bounds: if minimized { None } else { bounds },
                    minimized,
                },
                w,
            )
        })
        .collect()
}
