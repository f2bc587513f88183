//! Joining the window server's list with the apps' AX windows.
//!
//! `CGWindowListCopyWindowInfo` knows every window's number, owner, layer and bounds, front to
//! back, but since macOS 10.15 not its title without Screen Recording permission; an app's
//! `AXWindows` know titles and elements but no window number. A window is listed when both
//! sides agree: same process, then the same bounds (to the point), else the same title, else the
//! only window of that process left.

use cu_core::model::geometry::Rect;

/// One entry of `CGWindowListCopyWindowInfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct CgWindow {
    /// `kCGWindowNumber`.
    pub number: u32,
    /// `kCGWindowOwnerPID`.
    pub pid: i32,
    /// `kCGWindowOwnerName`.
    pub owner: String,
    /// `kCGWindowName` (empty without Screen Recording permission).
    pub name: String,
    /// `kCGWindowLayer`: 0 for normal app windows.
    pub layer: i32,
    /// `kCGWindowBounds`, points.
    pub bounds: Rect,
    /// `kCGWindowIsOnscreen`.
    pub on_screen: bool,
}

/// One of an app's `AXWindows`.
#[derive(Debug, Clone, PartialEq)]
pub struct AxWindow {
    /// `AXTitle`.
    pub title: String,
    /// `AXPosition` + `AXSize`, points.
    pub bounds: Option<Rect>,
    /// `AXMinimized`.
    pub minimized: bool,
}

/// Pairs each normal CG window (layer 0) with one AX window of the same process:
/// `(index into cg, index into ax)`, in the CG list's front-to-back order.
pub fn join(
    cg: &[CgWindow],
    mut ax_of: impl FnMut(i32) -> Vec<AxWindow>,
) -> Vec<(usize, AxWindow)> {
    let mut out = Vec::new();
    let mut pids: Vec<i32> = cg.iter().filter(|w| w.layer == 0).map(|w| w.pid).collect();
    pids.dedup();
    pids.sort_unstable();
    pids.dedup();
    for pid in pids {
        let mut ax: Vec<Option<AxWindow>> = ax_of(pid).into_iter().map(Some).collect();
        let mine: Vec<usize> = (0..cg.len())
            .filter(|i| cg[*i].pid == pid && cg[*i].layer == 0)
            .collect();
        let mut take = |pred: &dyn Fn(&CgWindow, &AxWindow) -> bool, i: usize| {
            let slot = ax
                .iter_mut()
                .find(|a| a.as_ref().is_some_and(|a| pred(&cg[i], a)))?;
            slot.take()
        };
        let mut unmatched = Vec::new();
        for &i in &mine {
            match take(&|c, a| a.bounds == Some(c.bounds), i)
                .or_else(|| take(&|c, a| !c.name.is_empty() && a.title == c.name, i))
            {
                Some(a) => out.push((i, a)),
                None => unmatched.push(i),
            }
        }
        // Minimized windows have no on-screen bounds to compare: pair what is left one to one
        // when exactly one of each remains.
        let left: Vec<AxWindow> = ax.into_iter().flatten().collect();
        if let ([i], [a]) = (unmatched.as_slice(), left.as_slice()) {
            out.push((*i, a.clone()));
        }
    }
    out.sort_by_key(|(i, _)| *i);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cg(number: u32, pid: i32, bounds: Rect, layer: i32) -> CgWindow {
        CgWindow {
            number,
            pid,
            owner: format!("app{pid}"),
            name: String::new(),
            layer,
            bounds,
            on_screen: true,
        }
    }

    fn ax(title: &str, bounds: Option<Rect>) -> AxWindow {
        AxWindow {
            title: title.into(),
            bounds,
            minimized: bounds.is_none(),
        }
    }

    #[test]
    fn windows_pair_by_bounds_then_title_and_keep_the_z_order() {
        let a = Rect::new(0, 25, 800, 600);
        let b = Rect::new(100, 125, 800, 600);
        let list = vec![
            cg(30, 7, b, 0),
            cg(31, 9, Rect::new(0, 0, 1440, 24), 25), // a menu-bar extra: not layer 0
            cg(20, 7, a, 0),
            cg(40, 9, Rect::new(5, 5, 300, 200), 0),
        ];
        let joined = join(&list, |pid| match pid {
            7 => vec![ax("First", Some(a)), ax("Second", Some(b))],
            9 => vec![ax("Only", None)],
            _ => vec![],
        });
        let pairs: Vec<(u32, &str)> = joined
            .iter()
            .map(|(i, w)| (list[*i].number, w.title.as_str()))
            .collect();
        assert_eq!(pairs, [(30, "Second"), (20, "First"), (40, "Only")]);
    }

    #[test]
    fn a_window_the_app_does_not_expose_is_not_listed() {
        let list = vec![
            cg(1, 3, Rect::new(0, 0, 10, 10), 0),
            cg(2, 3, Rect::new(9, 9, 10, 10), 0),
        ];
        let joined = join(&list, |_| vec![ax("Doc", Some(Rect::new(0, 0, 10, 10)))]);
        assert_eq!(joined.len(), 1);
        assert_eq!(list[joined[0].0].number, 1);
        assert!(join(&list, |_| Vec::new()).is_empty());
    }
}
