//! The X11 window, input and capture path: `_NET_CLIENT_LIST` for windows, `_NET_ACTIVE_WINDOW`
//! to activate, XTEST for pointer and keyboard, GetImage for capture.
//!
//! x11rb's connection is blocking; callers run these methods on tokio's blocking pool.

use std::time::{Duration, Instant};

use cu_core::model::backend::WindowChange;
use cu_core::model::geometry::{Point, Rect};
use cu_core::{Error, ErrorCode, Result};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, GetGeometryReply,
    GetPropertyReply, MapState, TranslateCoordinatesReply, Window,
};
use x11rb::rust_connection::RustConnection;

mod capture;
mod input;

/// A client window as `_NET_CLIENT_LIST` describes it (the join's pure type).
pub(crate) use crate::listing::XClient as XWindow;

struct Atoms {
    client_list: Atom,
    active_window: Atom,
    wm_pid: Atom,
    wm_name: Atom,
    utf8_string: Atom,
    wm_state: Atom,
    state_hidden: Atom,
    state_modal: Atom,
    at_spi_bus: Atom,
    moveresize: Atom,
    close_window: Atom,
    change_state: Atom,
    max_vert: Atom,
    max_horz: Atom,
    window_type: Atom,
    type_popup_menu: Atom,
    type_dropdown_menu: Atom,
}

/// A connection to one X display.
pub(crate) struct X11 {
    conn: RustConnection,
    root: Window,
    screen: Rect,
    atoms: Atoms,
}

fn x_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::GuiUnavailable, format!("X11 {what}: {e}"))
}

fn gone(id: Window) -> Error {
    Error::new(
        ErrorCode::WindowNotFound,
        format!("X11 window 0x{id:x} no longer exists"),
    )
}

/// A property request on the connection, its reply not read yet.
type PropertyCookie<'c> = x11rb::cookie::Cookie<'c, RustConnection, GetPropertyReply>;

/// A byte property (format 8) from its request; `None` when absent or of another format.
fn bytes_of(cookie: Option<PropertyCookie<'_>>) -> Option<Vec<u8>> {
    cookie
        .and_then(|c| c.reply().ok())
        .filter(|r| r.format == 8)
        .map(|r| r.value)
}

/// A 32-bit property from its request; empty when absent.
fn longs_of(cookie: Option<PropertyCookie<'_>>) -> Vec<u32> {
    cookie
        .and_then(|c| c.reply().ok())
        .and_then(|r| r.value32().map(|v| v.collect()))
        .unwrap_or_default()
}

/// A window's rectangle in root coordinates, from its geometry and its origin's place on the root.
fn bounds_of(geometry: GetGeometryReply, position: TranslateCoordinatesReply) -> Rect {
    Rect::new(
        position.dst_x as i32,
        position.dst_y as i32,
        geometry.width as i32,
        geometry.height as i32,
    )
}

/// What a press at a point would land on, as the X server stacks windows
/// ([`X11::drawn_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DrawnAt {
    /// The window's own top-level.
    Own,
    /// A popup of the window's application drawn over it.
    AppPopup,
    /// Another top-level: a dialog, another application's window.
    Other,
}

impl X11 {
    pub(crate) fn connect(display: &str) -> Result<X11> {
        let (conn, screen_num) = x11rb::connect(Some(display)).map_err(|e| {
            Error::new(
                ErrorCode::GuiUnavailable,
                format!("cannot open X display {display}: {e}"),
            )
            .with_suggestion("Set DISPLAY to the running X session (or start one), then try again.")
        })?;
        let screen = conn
            .setup()
            .roots
            .get(screen_num)
            .ok_or_else(|| x_err("setup", "no screen"))?;
        let root = screen.root;
        let screen_rect = Rect::new(
            0,
            0,
            screen.width_in_pixels as i32,
            screen.height_in_pixels as i32,
        );
        let intern = |name: &[u8]| -> Result<Atom> {
            Ok(conn
                .intern_atom(false, name)
                .map_err(|e| x_err("intern_atom", e))?
                .reply()
                .map_err(|e| x_err("intern_atom", e))?
                .atom)
        };
        let atoms = Atoms {
            client_list: intern(b"_NET_CLIENT_LIST")?,
            active_window: intern(b"_NET_ACTIVE_WINDOW")?,
            wm_pid: intern(b"_NET_WM_PID")?,
            wm_name: intern(b"_NET_WM_NAME")?,
            utf8_string: intern(b"UTF8_STRING")?,
            wm_state: intern(b"_NET_WM_STATE")?,
            state_hidden: intern(b"_NET_WM_STATE_HIDDEN")?,
            state_modal: intern(b"_NET_WM_STATE_MODAL")?,
            at_spi_bus: intern(b"AT_SPI_BUS")?,
            moveresize: intern(b"_NET_MOVERESIZE_WINDOW")?,
            close_window: intern(b"_NET_CLOSE_WINDOW")?,
            change_state: intern(b"WM_CHANGE_STATE")?,
            max_vert: intern(b"_NET_WM_STATE_MAXIMIZED_VERT")?,
            max_horz: intern(b"_NET_WM_STATE_MAXIMIZED_HORZ")?,
            window_type: intern(b"_NET_WM_WINDOW_TYPE")?,
            type_popup_menu: intern(b"_NET_WM_WINDOW_TYPE_POPUP_MENU")?,
            type_dropdown_menu: intern(b"_NET_WM_WINDOW_TYPE_DROPDOWN_MENU")?,
        };
        Ok(X11 {
            conn,
            root,
            screen: screen_rect,
            atoms,
        })
    }

    fn prop32(&self, win: Window, atom: Atom) -> Vec<u32> {
        longs_of(
            self.conn
                .get_property(false, win, atom, AtomEnum::ANY, 0, 4096)
                .ok(),
        )
    }

    fn prop_bytes(&self, win: Window, atom: Atom, kind: impl Into<Atom>) -> Option<Vec<u8>> {
        bytes_of(
            self.conn
                .get_property(false, win, atom, kind, 0, 65536)
                .ok(),
        )
    }

    /// The `AT_SPI_BUS` property on the root window, if the session published one.
    pub(crate) fn atspi_bus_property(&self) -> Option<String> {
        let bytes = self.prop_bytes(self.root, self.atoms.at_spi_bus, AtomEnum::ANY)?;
        String::from_utf8(bytes).ok().filter(|s| !s.is_empty())
    }

    pub(crate) fn active_window(&self) -> Option<Window> {
        self.prop32(self.root, self.atoms.active_window)
            .first()
            .copied()
            .filter(|w| *w != 0)
    }

    /// Top-level client windows, from the window manager's `_NET_CLIENT_LIST`.
    pub(crate) fn client_windows(&self) -> Result<Vec<XWindow>> {
        // Asked with errors kept: a broken connection (the X server gone) is GUI_UNAVAILABLE,
        // not an empty desktop.
        let reply = self
            .conn
            .get_property(
                false,
                self.root,
                self.atoms.client_list,
                AtomEnum::ANY,
                0,
                4096,
            )
            .map_err(|e| x_err("connection lost", e))?
            .reply()
            .map_err(|e| x_err("cannot read _NET_CLIENT_LIST", e))?;
        let ids: Vec<u32> = reply.value32().map(|v| v.collect()).unwrap_or_default();
        Ok(ids
            .into_iter()
            .filter_map(|id| self.describe(id).ok())
            .collect())
    }

    pub(crate) fn describe(&self, id: Window) -> Result<XWindow> {
        // Every request goes out before any reply is read: one round trip instead of seven.
        let geometry = self.conn.get_geometry(id).map_err(|_| gone(id))?;
        let position = self
            .conn
            .translate_coordinates(id, self.root, 0, 0)
            .map_err(|_| gone(id))?;
        let property = |atom: Atom, kind: Atom, longs: u32| {
            self.conn.get_property(false, id, atom, kind, 0, longs).ok()
        };
        let utf8_title = property(self.atoms.wm_name, self.atoms.utf8_string, 65536);
        let latin1_title = property(AtomEnum::WM_NAME.into(), AtomEnum::STRING.into(), 65536);
        let class = property(AtomEnum::WM_CLASS.into(), AtomEnum::STRING.into(), 65536);
        let pid = property(self.atoms.wm_pid, AtomEnum::ANY.into(), 4096);
        let state = property(self.atoms.wm_state, AtomEnum::ANY.into(), 4096);
        let attributes = self.conn.get_window_attributes(id).ok();
        let bounds = bounds_of(
            geometry.reply().map_err(|_| gone(id))?,
            position.reply().map_err(|_| gone(id))?,
        );
        let (utf8_title, latin1_title) = (bytes_of(utf8_title), bytes_of(latin1_title));
        let title = utf8_title
            .or(latin1_title)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let class = bytes_of(class)
            .map(|b| {
                // WM_CLASS is "instance\0class\0"; the class is the application name.
                let parts: Vec<String> = b
                    .split(|c| *c == 0)
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect();
                parts
                    .get(1)
                    .filter(|c| !c.is_empty())
                    .or(parts.first())
                    .cloned()
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        let pid = longs_of(pid).first().copied();
        let hidden = longs_of(state).contains(&self.atoms.state_hidden);
        let viewable = attributes
            .and_then(|c| c.reply().ok())
            .map(|a| a.map_state == MapState::VIEWABLE)
            .unwrap_or(false);
        Ok(XWindow {
            id,
            pid,
            title,
            class,
            bounds,
            minimized: hidden || !viewable,
        })
    }

    /// The client window's rectangle in root coordinates.
    pub(crate) fn bounds(&self, id: Window) -> Result<Rect> {
        let geometry = self.conn.get_geometry(id).map_err(|_| gone(id))?;
        let position = self
            .conn
            .translate_coordinates(id, self.root, 0, 0)
            .map_err(|_| gone(id))?;
        Ok(bounds_of(
            geometry.reply().map_err(|_| gone(id))?,
            position.reply().map_err(|_| gone(id))?,
        ))
    }

    /// Asks the window manager to activate `id` and waits until it is the active window.
    pub(crate) fn activate(&self, id: Window) -> Result<()> {
        if self.active_window() == Some(id) {
            return Ok(());
        }
        if let Some(dialog) = self.modal_over(id) {
            return Err(Error::new(
                ErrorCode::WindowBlocked,
                format!(
                    "window 0x{id:x} is blocked by the modal dialog {:?} (x11:0x{:x})",
                    dialog.title, dialog.id
                ),
            )
            .with_details(serde_json::json!({
                "dialog": { "window_id": format!("x11:0x{:x}", dialog.id), "title": dialog.title }
            })));
        }
        self.message(id, self.atoms.active_window, [2, 0, 0, 0, 0])?;
        let deadline = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < deadline {
            if self.active_window() == Some(id) {
                // Let the window manager finish raising before input lands.
                self.sync()?;
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.bounds(id)?;
        Err(Error::new(
            ErrorCode::ActionFailed,
            format!("the window manager did not activate window 0x{id:x}"),
        )
        .with_suggestion(
            "Make sure a window manager that supports _NET_ACTIVE_WINDOW is running, then retry.",
        ))
    }

    /// Asks the window manager (EWMH / ICCCM client messages to the root window) to change
    /// `id`. Only asks: the caller reads the outcome back.
    pub(crate) fn change(&self, id: Window, change: &WindowChange) -> Result<()> {
        self.bounds(id)?;
        // Source indication 2: a pager or tool acting for the user, which window managers obey.
        const TOOL: u32 = 2;
        const ADD: u32 = 1;
        const REMOVE: u32 = 0;
        // StaticGravity: x, y are the client window's own position, not its frame's.
        const STATIC_GRAVITY: u32 = 10;
        let (atom, data) = match change {
            WindowChange::Focus => return self.activate(id),
            WindowChange::Move { to } => (
                self.atoms.moveresize,
                [
                    STATIC_GRAVITY | 1 << 8 | 1 << 9 | TOOL << 12,
                    to.x as u32,
                    to.y as u32,
                    0,
                    0,
                ],
            ),
            WindowChange::Resize { size } => (
                self.atoms.moveresize,
                [
                    STATIC_GRAVITY | 1 << 10 | 1 << 11 | TOOL << 12,
                    0,
                    0,
                    size.width.max(1) as u32,
                    size.height.max(1) as u32,
                ],
            ),
            // ICCCM: IconicState.
            WindowChange::Minimize => (self.atoms.change_state, [3, 0, 0, 0, 0]),
            WindowChange::Maximize => (
                self.atoms.wm_state,
                [ADD, self.atoms.max_vert, self.atoms.max_horz, TOOL, 0],
            ),
            WindowChange::Restore => {
                self.message(
                    id,
                    self.atoms.wm_state,
                    [REMOVE, self.atoms.max_vert, self.atoms.max_horz, TOOL, 0],
                )?;
                // Mapping an iconified window back is activation's job (_NET_ACTIVE_WINDOW).
                if self.describe(id)?.minimized {
                    return self.activate(id);
                }
                return self.sync();
            }
            WindowChange::Close => (self.atoms.close_window, [0, TOOL, 0, 0, 0]),
            _ => {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{change:?} is not known to the X11 backend"),
                ))
            }
        };
        self.message(id, atom, data)?;
        self.sync()
    }

    /// Sends a client message about `id` to the root window, as EWMH asks.
    fn message(&self, id: Window, atom: Atom, data: [u32; 5]) -> Result<()> {
        let event = ClientMessageEvent::new(32, id, atom, data);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(|e| x_err("send_event", e))?;
        self.conn.flush().map_err(|e| x_err("flush", e))
    }

    /// A modal dialog that blocks `id`: a client window transient for it (`WM_TRANSIENT_FOR`)
    /// whose `_NET_WM_STATE` says modal (LibreOffice's "Confirm File Format" over its document).
    fn modal_over(&self, id: Window) -> Option<XWindow> {
        let list = self.prop32(self.root, self.atoms.client_list);
        list.into_iter()
            .filter(|&w| w != id)
            .find(|&w| {
                self.prop32(w, AtomEnum::WM_TRANSIENT_FOR.into()).first() == Some(&id)
                    && self
                        .prop32(w, self.atoms.wm_state)
                        .contains(&self.atoms.state_modal)
            })
            .and_then(|w| self.describe(w).ok())
    }

    fn sync(&self) -> Result<()> {
        self.conn
            .get_input_focus()
            .map_err(|e| x_err("sync", e))?
            .reply()
            .map_err(|e| x_err("sync", e))?;
        Ok(())
    }

    /// An open popup menu of `id`'s application: a viewable override-redirect window of the same
    /// X client typed `_NET_WM_WINDOW_TYPE_POPUP_MENU` or `_DROPDOWN_MENU`. Such a menu grabs the
    /// keyboard, and Qt leaves popups out of its accessibility tree altogether, so while one is
    /// open the keys go to a menu the tree cannot show. (Tooltips, also override-redirect
    /// windows of the app, are typed otherwise and take no keys.)
    pub(crate) fn open_menu_of(&self, id: Window) -> Result<Option<Window>> {
        let mask = self.conn.setup().resource_id_mask;
        let client = |w: Window| w & !mask;
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| x_err("query_tree", e))?
            .reply()
            .map_err(|e| x_err("query_tree", e))?;
        let mine: Vec<Window> = tree
            .children
            .iter()
            .rev()
            .copied()
            .filter(|w| client(*w) == client(id) && *w != id)
            .collect();
        let attributes: Vec<_> = mine
            .iter()
            .map(|w| self.conn.get_window_attributes(*w).ok())
            .collect();
        for (w, cookie) in mine.iter().zip(attributes) {
            let open = cookie
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == MapState::VIEWABLE && a.override_redirect);
            if !open {
                continue;
            }
            let types = longs_of(
                self.conn
                    .get_property(false, *w, self.atoms.window_type, AtomEnum::ATOM, 0, 16)
                    .ok(),
            );
            if types
                .iter()
                .any(|t| *t == self.atoms.type_popup_menu || *t == self.atoms.type_dropdown_menu)
            {
                return Ok(Some(*w));
            }
        }
        Ok(None)
    }

    /// What is drawn at the root point `at`, seen from `id`'s window: its own top-level, a
    /// popup of its application (a viewable override-redirect top-level of the same X client: a
    /// combo box's open list, a menu), or another top-level (a dialog, another application).
    /// One round trip for where the point lands, one more only when it is not `id`'s own.
    pub(crate) fn drawn_at(&self, id: Window, at: Point) -> Result<DrawnAt> {
        let top = self.toplevel_of(id)?;
        let hit = self
            .conn
            .translate_coordinates(self.root, self.root, at.x as i16, at.y as i16)
            .map_err(|e| x_err("translate_coordinates", e))?
            .reply()
            .map_err(|e| x_err("translate_coordinates", e))?;
        if hit.child == top {
            return Ok(DrawnAt::Own);
        }
        let mask = self.conn.setup().resource_id_mask;
        if hit.child == 0 || hit.child & !mask != id & !mask {
            return Ok(DrawnAt::Other);
        }
        let attributes = self
            .conn
            .get_window_attributes(hit.child)
            .map_err(|e| x_err("get_window_attributes", e))?
            .reply()
            .map_err(|e| x_err("get_window_attributes", e))?;
        Ok(
            if attributes.map_state == MapState::VIEWABLE && attributes.override_redirect {
                DrawnAt::AppPopup
            } else {
                DrawnAt::Other
            },
        )
    }

    fn toplevel_of(&self, mut id: Window) -> Result<Window> {
        for _ in 0..64 {
            let tree = self
                .conn
                .query_tree(id)
                .map_err(|_| gone(id))?
                .reply()
                .map_err(|_| gone(id))?;
            if tree.parent == self.root || tree.parent == 0 {
                return Ok(id);
            }
            id = tree.parent;
        }
        Ok(id)
    }
}
