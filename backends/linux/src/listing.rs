//! Joining the window system's list with the apps' accessible frames (pure, cfg-free).
//!
//! On X11, `_NET_CLIENT_LIST` knows every client window's id, owner pid, title, class and
//! rectangle; the AT-SPI tree knows each application's frames (top-level accessibles) with their
//! names and elements, but no X window id. A window is listed when both sides agree, in passes
//! over all windows, each frame used once: the same pid and title; else the same pid and the
//! same place and size (a dialog whose accessible name is not its title: LibreOffice's
//! "Confirm File Format" is an alert named "Question"); else the only showing frame of a pid that
//! has one X window; else, for apps that do not report a pid, the same non-empty title. Titles are
//! not unique and toolkits rename frames, so pid comes first. Frames are measured only when a
//! window of their pid is still unmatched ([`frames_to_measure`]): listing stays one round of
//! calls in the common case.
//!
//! Without X11 (Wayland) the showing accessible frames are the windows, positions unknown,
//! except the compositor's own nameless stage.

use cu_core::model::geometry::Rect;
use cu_core::model::window::{WindowId, WindowInfo};

/// One X11 client window (`_NET_CLIENT_LIST`).
#[derive(Debug, Clone, PartialEq)]
pub struct XClient {
    /// The X window id.
    pub id: u32,
    /// `_NET_WM_PID`.
    pub pid: Option<u32>,
    /// `_NET_WM_NAME` (or `WM_NAME`).
    pub title: String,
    /// `WM_CLASS`'s class part.
    pub class: String,
    /// The client window's rectangle in root coordinates (no window-manager frame).
    pub bounds: Rect,
    /// Iconic (`WM_STATE`) or hidden (`_NET_WM_STATE_HIDDEN`).
    pub minimized: bool,
}

/// What the join needs of one accessible frame (a top-level child of an application).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameFacts {
    /// The application's accessible name.
    pub app_name: String,
    /// The frame's accessible name.
    pub title: String,
    /// The application's process id, when the bus knows it.
    pub pid: Option<u32>,
    /// SHOWING or VISIBLE.
    pub showing: bool,
    /// ACTIVE.
    pub active: bool,
    /// ICONIFIED.
    pub iconified: bool,
    /// Where the frame says it is, when it was measured ([`frames_to_measure`]).
    pub extents: Option<Extents>,
}

/// A frame's extents as its toolkit reports them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Extents {
    /// In screen coordinates; may include the window manager's decoration (LibreOffice).
    Screen(Rect),
    /// Relative to the window itself (GTK 4): only the size says anything.
    WindowRelative {
        /// Width.
        width: i32,
        /// Height.
        height: i32,
    },
}

/// How far each edge of a frame's extents may lie from its X window's: the window manager's
/// decoration (a title bar, borders), which some toolkits count in.
const DECORATION: i32 = 32;

impl Extents {
    /// How far these extents are from a client window's rectangle (the sum of the edges'
    /// distances), or `None` when some edge is further than [`DECORATION`].
    fn distance(&self, client: Rect) -> Option<i32> {
        let edges = match *self {
            Extents::Screen(r) => [
                r.x - client.x,
                r.y - client.y,
                (r.x + r.width) - (client.x + client.width),
                (r.y + r.height) - (client.y + client.height),
            ],
            Extents::WindowRelative { width, height } => {
                [width - client.width, height - client.height, 0, 0]
            }
        };
        edges
            .iter()
            .all(|d| d.abs() <= DECORATION)
            .then(|| edges.iter().map(|d| d.abs()).sum())
    }
}

/// Compositors whose own nameless frame is no app window.
const SHELLS: &[&str] = &["gnome-shell", "mutter", "kwin_wayland", "plasmashell"];

/// What one pass of [`join_x11`] would pay to pair a client with a frame (`None`: never).
type Rank<'a> = dyn Fn(&XClient, &FrameFacts) -> Option<i32> + 'a;

/// Pairs X client windows with accessible frames: `(client index, frame index)`, in the
/// clients' order; clients without a frame are left out.
pub fn join_x11(clients: &[XClient], frames: &[FrameFacts]) -> Vec<(usize, usize)> {
    let mut frame_used = vec![false; frames.len()];
    let mut pairs: Vec<Option<usize>> = vec![None; clients.len()];
    let same_pid = |c: &XClient, f: &FrameFacts| f.pid.is_some() && f.pid == c.pid;
    let windows_of = |pid: Option<u32>| clients.iter().filter(|o| o.pid == pid).count();
    // Each pass offers every still unmatched client a frame; `rank` is `Some(cost)` for a frame
    // it would take, the cheapest winning.
    let passes: [&Rank; 4] = [
        &|c, f| (same_pid(c, f) && f.title == c.title).then_some(0),
        &|c, f| {
            let measured = f.extents.as_ref()?;
            if same_pid(c, f) && f.showing {
                measured.distance(c.bounds)
            } else {
                None
            }
        },
        &|c, f| (same_pid(c, f) && f.showing && windows_of(c.pid) == 1).then_some(0),
        &|c, f| (f.pid.is_none() && !f.title.is_empty() && f.title == c.title).then_some(0),
    ];
    for rank in passes {
        for (ci, c) in clients.iter().enumerate() {
            if pairs[ci].is_some() {
                continue;
            }
            let best = (0..frames.len())
                .filter(|&fi| !frame_used[fi])
                .filter_map(|fi| rank(c, &frames[fi]).map(|cost| (cost, fi)))
                .min();
            if let Some((_, fi)) = best {
                frame_used[fi] = true;
                pairs[ci] = Some(fi);
            }
        }
    }
    pairs
        .into_iter()
        .enumerate()
        .filter_map(|(ci, fi)| Some((ci, fi?)))
        .collect()
}

/// The frames worth measuring after a first [`join_x11`]: unused, showing, not yet measured,
/// and of a pid that still has an unmatched window.
pub fn frames_to_measure(
    clients: &[XClient],
    frames: &[FrameFacts],
    pairs: &[(usize, usize)],
) -> Vec<usize> {
    let matched = |ci: usize| pairs.iter().any(|&(c, _)| c == ci);
    let used = |fi: usize| pairs.iter().any(|&(_, f)| f == fi);
    let waiting: Vec<u32> = (0..clients.len())
        .filter(|&ci| !matched(ci))
        .filter_map(|ci| clients[ci].pid)
        .collect();
    (0..frames.len())
        .filter(|&fi| {
            let f = &frames[fi];
            !used(fi)
                && f.showing
                && f.extents.is_none()
                && f.pid.is_some_and(|pid| waiting.contains(&pid))
        })
        .collect()
}

/// The listing of an X11 window: the client's id, bounds and state; names from whichever side
/// has them. Without a frame (an app with no accessibility, or not registered yet) it is listed
/// all the same, marked `no_tree`, under its `WM_CLASS`.
pub fn x11_window(c: &XClient, f: Option<&FrameFacts>, active: Option<u32>) -> WindowInfo {
    let app = match f {
        Some(f) if !f.app_name.is_empty() => f.app_name.clone(),
        _ => c.class.clone(),
    };
    WindowInfo {
        id: WindowId(format!("x11:0x{:x}", c.id)),
        app,
        title: match f {
            Some(f) if c.title.is_empty() => f.title.clone(),
            _ => c.title.clone(),
        },
        pid: c.pid.or(f.and_then(|f| f.pid)),
        bounds: Some(c.bounds),
        focused: active == Some(c.id),
        minimized: c.minimized,
        no_tree: f.is_none(),
    }
}

/// The X11 clients no frame was joined to, except zero-sized ones (nothing a person sees).
pub fn frameless(clients: &[XClient], pairs: &[(usize, usize)]) -> Vec<usize> {
    (0..clients.len())
        .filter(|ci| !pairs.iter().any(|(c, _)| c == ci))
        .filter(|&ci| !clients[ci].bounds.is_empty())
        .collect()
}

/// The frames that are windows without X11 (Wayland): showing, and not the compositor's own.
pub fn wayland_frames(frames: &[FrameFacts]) -> Vec<usize> {
    let own_ui = |f: &FrameFacts| f.title.is_empty() && SHELLS.contains(&f.app_name.as_str());
    (0..frames.len())
        .filter(|&i| frames[i].showing && !own_ui(&frames[i]))
        .collect()
}

/// The listing of a frame without X11: no position (Wayland has no global coordinates).
pub fn wayland_window(id: WindowId, f: &FrameFacts) -> WindowInfo {
    WindowInfo {
        id,
        app: f.app_name.clone(),
        title: f.title.clone(),
        pid: f.pid,
        bounds: None,
        focused: f.active,
        minimized: f.iconified,
        no_tree: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(id: u32, pid: Option<u32>, title: &str) -> XClient {
        XClient {
            id,
            pid,
            title: title.into(),
            class: "Class".into(),
            bounds: Rect::new(10, 20, 300, 200),
            minimized: false,
        }
    }

    fn frame(pid: Option<u32>, title: &str, showing: bool) -> FrameFacts {
        FrameFacts {
            app_name: "app".into(),
            title: title.into(),
            pid,
            showing,
            ..FrameFacts::default()
        }
    }

    #[test]
    fn same_pid_and_title_first_then_the_only_showing_frame_of_the_pid() {
        let clients = [
            client(1, Some(7), "Doc - Writer"),
            client(2, Some(8), "Save"),
        ];
        let frames = [
            frame(Some(8), "Question", true), // a dialog whose accessible name differs
            frame(Some(7), "Doc - Writer", true),
        ];
        assert_eq!(join_x11(&clients, &frames), vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn a_renamed_frame_is_not_guessed_when_its_pid_has_several_windows() {
        let clients = [client(1, Some(7), "One"), client(2, Some(7), "Two")];
        let frames = [frame(Some(7), "Two", true), frame(Some(7), "Other", true)];
        // "Two" pairs by title; "One" has no frame with its title, and pid 7 has two windows.
        assert_eq!(join_x11(&clients, &frames), vec![(1, 0)]);
    }

    #[test]
    fn regression_libreoffices_confirm_file_format_alert_was_not_listed() {
        // X11 says "Confirm File Format" (a modal dialog of the Writer window's pid); AT-SPI has
        // a showing alert named "Question" whose extents include the title bar, as LibreOffice's
        // frames all do. The pid has two windows, so only the geometry can pair them.
        let mut writer = client(1, Some(7), "Untitled 1 - LibreOffice Writer");
        writer.bounds = Rect::new(0, 19, 1920, 1061);
        let mut confirm = client(2, Some(7), "Confirm File Format");
        confirm.bounds = Rect::new(698, 474, 525, 191);
        let clients = [writer, confirm];
        let mut frames = [
            frame(Some(7), "Untitled 1 - LibreOffice Writer", true),
            frame(Some(7), "Question", true),
        ];
        let first = join_x11(&clients, &frames);
        assert_eq!(
            first,
            vec![(0, 0)],
            "titles alone pair only the Writer window"
        );
        assert_eq!(frames_to_measure(&clients, &frames, &first), vec![1]);
        frames[1].extents = Some(Extents::Screen(Rect::new(697, 454, 527, 212)));
        assert_eq!(join_x11(&clients, &frames), vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn geometry_picks_the_closest_frame_and_never_one_of_another_pid_or_too_far() {
        let mut small = client(1, Some(7), "A");
        small.bounds = Rect::new(100, 100, 200, 100);
        let mut big = client(2, Some(7), "B");
        big.bounds = Rect::new(0, 0, 800, 600);
        let mut stranger = client(3, Some(9), "C");
        stranger.bounds = Rect::new(100, 100, 200, 100);
        let clients = [small, big, stranger];
        let measured = |pid, r: Rect| FrameFacts {
            extents: Some(Extents::Screen(r)),
            ..frame(Some(pid), "renamed", true)
        };
        let frames = [
            measured(7, Rect::new(0, 0, 800, 600)),
            measured(7, Rect::new(100, 80, 200, 120)),
            // GTK 4: only the size is known.
            FrameFacts {
                extents: Some(Extents::WindowRelative {
                    width: 300,
                    height: 300,
                }),
                ..frame(Some(9), "renamed", true)
            },
        ];
        // Pid 9's only window takes its only frame in the later pass, whatever its size.
        assert_eq!(join_x11(&clients, &frames), vec![(0, 1), (1, 0), (2, 2)]);
        let lone = [clients[0].clone(), clients[1].clone()];
        let far = [measured(7, Rect::new(500, 500, 200, 100))];
        assert_eq!(
            join_x11(&lone, &far),
            vec![],
            "64 px away is another window"
        );
    }

    #[test]
    fn each_frame_is_used_once_and_hidden_frames_are_not_guessed() {
        let clients = [client(1, Some(7), "A"), client(2, Some(9), "B")];
        let frames = [
            frame(Some(7), "A", true),
            frame(Some(9), "not shown", false),
        ];
        assert_eq!(join_x11(&clients, &frames), vec![(0, 0)]);
    }

    #[test]
    fn apps_without_a_pid_join_by_a_non_empty_title() {
        let clients = [client(1, None, "Title"), client(2, None, "")];
        let frames = [frame(None, "", true), frame(None, "Title", true)];
        assert_eq!(join_x11(&clients, &frames), vec![(0, 1)]);
    }

    #[test]
    fn x11_listing_takes_names_from_whichever_side_has_them() {
        let mut c = client(0x2a, None, "");
        c.minimized = true;
        let mut f = frame(Some(5), "Frame title", true);
        f.app_name = String::new();
        let w = x11_window(&c, Some(&f), Some(0x2a));
        assert_eq!(w.id.0, "x11:0x2a");
        assert_eq!((w.app.as_str(), w.title.as_str()), ("Class", "Frame title"));
        assert_eq!((w.pid, w.focused, w.minimized), (Some(5), true, true));
        assert_eq!(w.bounds, Some(Rect::new(10, 20, 300, 200)));
    }

    #[test]
    fn wayland_lists_showing_frames_but_not_the_compositor_stage() {
        let mut stage = frame(None, "", true);
        stage.app_name = "gnome-shell".into();
        let frames = [
            stage,
            frame(Some(3), "Editor", true),
            frame(Some(4), "hidden", false),
        ];
        assert_eq!(wayland_frames(&frames), vec![1]);
        let w = wayland_window(WindowId("atspi:x".into()), &frames[1]);
        assert_eq!((w.bounds, w.title.as_str()), (None, "Editor"));
    }

    #[test]
    fn regression_a_window_without_a_frame_was_not_listed() {
        let xlogo = XClient {
            id: 0x60_0001,
            pid: Some(7),
            title: "xlogo".into(),
            class: "XLogo".into(),
            bounds: Rect::new(100, 100, 300, 200),
            minimized: false,
        };
        let unmapped = XClient {
            bounds: Rect::new(0, 0, 0, 0),
            ..xlogo.clone()
        };
        let clients = [xlogo.clone(), unmapped];
        assert_eq!(
            frameless(&clients, &[]),
            vec![0],
            "a zero-sized client is nothing seen"
        );
        let w = x11_window(&xlogo, None, None);
        assert!(w.no_tree);
        assert_eq!((w.app.as_str(), w.title.as_str()), ("XLogo", "xlogo"));
    }
}
