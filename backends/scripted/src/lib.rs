//! A backend for tests: the middle test boundary between pure logic and a real desktop.
//!
//! [`Scripted`] serves windows whose element trees are written in the fixture outline format
//! (`cu_core::extract::outline_fixture`, with `@x,y wxh` bounds), and behaves the way a toolkit
//! does where the safety gate cares:
//!
//! - focus moves on Tab and shift+Tab among focusable, enabled elements, and to what is clicked;
//! - space presses the focused button (it is text in a text field); Return presses the focused
//!   button, or the window's `default` button when focus is on a control that does not take it
//!   (a single-line field, a check box, a list item) or nowhere;
//! - a letter typed on a list or tree item moves focus to the next item starting with it;
//! - `alt+letter` presses the control whose name marks that letter with `_` (`"_Delete"`), and in
//!   an open menu a plain letter does;
//! - a click presses the control under the point (the deepest element whose bounds hold it, its
//!   nearest interactive ancestor), a drag presses when it starts and ends on the same control;
//! - semantic actions press, toggle, select, focus and set text;
//! - hit tests and the focused element are answered from the live tree.
//!
//! Every call that changes something is recorded ([`Event`]); presses are listed by
//! [`Scripted::presses`]; snapshots are counted ([`Scripted::snapshots`]). A watch wakes on any
//! change; with [`Scripted::with_typed_events`] it also tells them apart the way AT-SPI events
//! do (the window's content, its focus, a new window, another window). A test can script the world: rename an element, move a window, open a
//! window when a button is pressed, or make the next call of a kind fail.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use cu_core::backend::{
    Backend, BackendInfo, Capabilities, HealthCheck, InputEvent, MouseButton, Seen, SemanticAction,
    Watch, WindowChange, WindowImage,
};
use cu_core::element::{
    ActionKind, DesktopInstance, ElementIdentity, Node, Snapshot, SnapshotOptions, State,
};
use cu_core::extract::outline_fixture;
use cu_core::geometry::{Point, Rect};
use cu_core::keys::{self, Key, NamedKey};
use cu_core::receiver::Probe;
use cu_core::role::Role;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};

/// What the backend was asked to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Raw input to a window.
    Input(WindowId, InputEvent),
    /// A semantic action on an element (by its name).
    Perform(WindowId, String, SemanticAction),
    /// A window was brought to the front.
    Activate(WindowId),
    /// A window was asked to change (`gui_window`).
    Window(WindowId, WindowChange),
}

/// What happens when a named control is pressed.
#[derive(Debug, Clone)]
pub enum Reaction {
    /// Rename an element (by its current name).
    Rename {
        /// The element's name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Open a window from a fixture.
    Open(String),
    /// Close the window.
    Close,
    /// End the application: all its windows go and its process stops (a crash or a quit).
    Exit,
}

/// Kinds of calls a test can make fail once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Call {
    /// `snapshot`.
    Snapshot,
    /// `perform`.
    Perform,
    /// `input`.
    Input,
    /// `element_at`.
    ElementAt,
    /// `focused`.
    Focused,
    /// `activate`.
    Activate,
}

struct ScriptedWindow {
    info: WindowInfo,
    nodes: Vec<Node>,
    focus: Option<usize>,
}

#[derive(Default)]
struct World {
    windows: Vec<ScriptedWindow>,
    events: Vec<Event>,
    presses: Vec<String>,
    reactions: HashMap<String, Reaction>,
    failures: HashMap<Call, ErrorCode>,
    panics: std::collections::HashSet<Call>,
    next_window: u32,
    clipboard: String,
    /// Processes ended by [`Reaction::Exit`].
    ended: std::collections::HashSet<u32>,
    /// Snapshots taken: whether each allowed a kept walk (`SnapshotOptions::reuse`).
    snapshots: Vec<bool>,
    /// Watches tell changes apart ([`Scripted::with_typed_events`]).
    typed_events: bool,
}

/// The scripted backend; cheap to clone (shared world).
#[derive(Clone)]
pub struct Scripted {
    world: Arc<Mutex<World>>,
    /// Bumped on every change of the world, for [`Backend::watch`].
    changes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Default for Scripted {
    fn default() -> Self {
        Scripted {
            world: Arc::default(),
            changes: Arc::new(tokio::sync::watch::Sender::new(0)),
        }
    }
}

/// A watch on the scripted world: any change of any window counts.
struct WorldWatch(tokio::sync::watch::Receiver<u64>);

#[async_trait]
impl Watch for WorldWatch {
    async fn changed(&mut self, within: std::time::Duration) -> bool {
        matches!(
            tokio::time::timeout(within, self.0.changed()).await,
            Ok(Ok(()))
        )
    }
}

/// A watch that tells changes apart, as AT-SPI events do: it compares what the watched window
/// shows (content and focus) and which windows exist with what it saw last, at each change.
struct TypedWatch {
    world: Arc<Mutex<World>>,
    /// Wakes on any change, as [`WorldWatch`] does.
    wake: WorldWatch,
    window: WindowId,
    last: Look,
}

/// What a typed watch saw last.
#[derive(Clone, PartialEq, Eq)]
struct Look {
    content: String,
    focus: Option<usize>,
    windows: Vec<WindowId>,
}

impl Look {
    fn of(world: &Arc<Mutex<World>>, window: &WindowId) -> Look {
        let w = match world.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        let win = w.windows.iter().find(|x| &x.info.id == window);
        Look {
            content: win
                .map(|x| {
                    x.nodes
                        .iter()
                        .map(|n| {
                            format!(
                                "{:?}{:?}{:?}{:?}",
                                n.role,
                                n.name,
                                n.value,
                                n.states.without(State::Focused)
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
            focus: win.and_then(|x| x.focus),
            windows: w.windows.iter().map(|x| x.info.id.clone()).collect(),
        }
    }

    /// What changed from `before` to this look, as one event would say it.
    fn since(&self, before: &Look) -> Option<Seen> {
        if self.content != before.content {
            Some(Seen::Content)
        } else if self.focus != before.focus {
            Some(Seen::Focus)
        } else if self.windows.iter().any(|w| !before.windows.contains(w)) {
            Some(Seen::NewWindow)
        } else if self.windows != before.windows {
            Some(Seen::Elsewhere)
        } else {
            None
        }
    }
}

#[async_trait]
impl Watch for TypedWatch {
    async fn changed(&mut self, within: std::time::Duration) -> bool {
        self.wake.changed(within).await
    }

    async fn seen(&mut self, within: std::time::Duration) -> Result<Option<Seen>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let now = Look::of(&self.world, &self.window);
            let seen = now.since(&self.last);
            self.last = now;
            if seen.is_some() {
                return Ok(seen);
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() || !self.wake.changed(left).await {
                return Ok(None);
            }
        }
    }

    fn clear(&mut self) {
        self.last = Look::of(&self.world, &self.window);
    }

    async fn settle(&mut self, _within: std::time::Duration) -> bool {
        true
    }
}

/// The name [`Scripted::on_press`] reacts to when a window is asked to close (`gui_window`
/// close): `Reaction::Open` opens a "Save changes?" dialog instead of closing.
pub const CLOSE_REQUEST: &str = "(close request)";

/// The desktop instance every scripted observation carries.
pub const DESKTOP: &str = "scripted";

impl Scripted {
    /// A backend with no windows.
    pub fn new() -> Scripted {
        Scripted::default()
    }

    fn world(&self) -> MutexGuard<'_, World> {
        match self.world.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Adds a window from a fixture outline (its root's bounds are the window's size, placed at
    /// `origin` on the screen); returns its id. The element marked `focused` has focus.
    pub fn open(&self, fixture: &str, origin: Point) -> std::result::Result<WindowId, String> {
        let snapshot = outline_fixture::parse(fixture)?;
        let mut w = self.world();
        Ok(w.add(snapshot, origin))
    }

    /// Watches tell changes apart ([`Watch::seen`]), as the AT-SPI backend's do; without this,
    /// they only wake (and effects are watched by reading the window again).
    pub fn with_typed_events(self) -> Scripted {
        self.world().typed_events = true;
        self
    }

    /// How many snapshots were taken.
    pub fn snapshots(&self) -> usize {
        self.world().snapshots.len()
    }

    /// How many of the snapshots taken allowed a kept walk (`SnapshotOptions::reuse`).
    pub fn reusable_snapshots(&self) -> usize {
        self.world().snapshots.iter().filter(|r| **r).count()
    }

    /// Renames the first element named `from`.
    pub fn rename(&self, from: &str, to: &str) {
        self.world().rename(from, to);
        self.touched();
    }

    /// Tells the watches that the world changed.
    fn touched(&self) {
        self.changes.send_modify(|g| *g += 1);
    }

    /// Moves (or resizes) a window.
    pub fn move_window(&self, window: &WindowId, bounds: Rect) {
        if let Some(win) = self
            .world()
            .windows
            .iter_mut()
            .find(|x| &x.info.id == window)
        {
            win.info.bounds = Some(bounds);
        }
        self.touched();
    }

    /// What happens when the control named `name` is pressed.
    pub fn on_press(&self, name: &str, reaction: Reaction) {
        self.world().reactions.insert(name.to_owned(), reaction);
    }

    /// Makes the next call of kind `call` fail with `code`.
    pub fn fail_next(&self, call: Call, code: ErrorCode) {
        self.world().failures.insert(call, code);
    }

    /// Makes the next call of kind `call` panic (a bug inside a tool call, for the test that
    /// such a call answers `INTERNAL` and the next one works).
    pub fn panic_next(&self, call: Call) {
        self.world().panics.insert(call);
    }

    /// Every recorded call.
    pub fn events(&self) -> Vec<Event> {
        self.world().events.clone()
    }

    /// Input and actions only (activations left out).
    pub fn inputs(&self) -> Vec<Event> {
        self.events()
            .into_iter()
            .filter(|e| !matches!(e, Event::Activate(_)))
            .collect()
    }

    /// Names of the controls pressed, in order.
    pub fn presses(&self) -> Vec<String> {
        self.world().presses.clone()
    }

    /// The value of the first element named `name`.
    pub fn value_of(&self, name: &str) -> Option<String> {
        let w = self.world();
        w.windows
            .iter()
            .flat_map(|x| x.nodes.iter())
            .find(|n| n.name == name)
            .and_then(|n| n.value.clone())
    }
}

impl World {
    fn add(&mut self, mut snapshot: Snapshot, origin: Point) -> WindowId {
        self.next_window += 1;
        let id = WindowId(format!("scripted:{}", self.next_window));
        let size = snapshot
            .nodes
            .first()
            .and_then(|r| r.bounds)
            .unwrap_or(Rect::new(0, 0, 400, 300));
        for (i, node) in snapshot.nodes.iter_mut().enumerate() {
            node.identity = ElementIdentity(format!("{}#{i}", id.0));
            node.actions = actions_of(node.role);
            if node.role.is_interactive() && !node.states.contains(State::Disabled) {
                node.states.insert(State::Focusable);
            }
        }
        let focus = snapshot
            .nodes
            .iter()
            .position(|n| n.states.contains(State::Focused));
        let app = if snapshot.window.app.is_empty() {
            "scripted".to_owned()
        } else {
            snapshot.window.app.clone()
        };
        // One process per application, as on a desktop: windows of one app share a pid.
        let pid = 4242 + app.bytes().map(u32::from).sum::<u32>();
        let info = WindowInfo {
            id: id.clone(),
            app,
            title: snapshot.window.title.clone(),
            pid: Some(pid),
            bounds: Some(Rect::new(origin.x, origin.y, size.width, size.height)),
            focused: true,
            minimized: false,
            no_tree: false,
        };
        self.windows.push(ScriptedWindow {
            info,
            nodes: snapshot.nodes,
            focus,
        });
        id
    }

    fn window(&mut self, id: &WindowId) -> Result<&mut ScriptedWindow> {
        self.windows
            .iter_mut()
            .find(|w| &w.info.id == id)
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, format!("no window {id}")))
    }

    fn fail(&mut self, call: Call) -> Result<()> {
        if self.panics.remove(&call) {
            panic!("scripted panic in {call:?}");
        }
        match self.failures.remove(&call) {
            Some(code) => Err(Error::new(code, format!("scripted failure of {call:?}"))),
            None => Ok(()),
        }
    }

    fn rename(&mut self, from: &str, to: &str) {
        if let Some(n) = self
            .windows
            .iter_mut()
            .flat_map(|w| w.nodes.iter_mut())
            .find(|n| n.name == from)
        {
            n.name = to.to_owned();
        }
    }

    /// Presses element `index` of `window`: recorded, then its scripted reaction.
    fn press(&mut self, window: &WindowId, index: usize) {
        let Ok(win) = self.window(window) else { return };
        let pid = win.info.pid;
        let Some(node) = win.nodes.get_mut(index) else {
            return;
        };
        if node.states.contains(State::Disabled) {
            return;
        }
        match node.role {
            Role::CheckBox | Role::ToggleButton | Role::Switch => {
                if node.states.contains(State::Checked) {
                    node.states.remove(State::Checked);
                } else {
                    node.states.insert(State::Checked);
                }
            }
            Role::Menu if cu_core::receiver::opens_menu_only(node) => {
                // Opening a menu shows its items; nothing is pressed (a menu without items
                // acts like a button: a web page's `<div role="menu" onclick=…>`).
                node.states.insert(State::Expanded);
                return;
            }
            _ => {}
        }
        let name = shown_name(&win.nodes, index);
        self.presses.push(name.clone());
        match self.reactions.get(&name).cloned() {
            Some(Reaction::Rename { from, to }) => self.rename(&from, &to),
            Some(Reaction::Open(fixture)) => {
                if let Ok(s) = outline_fixture::parse(&fixture) {
                    self.add(s, Point::new(50, 50));
                }
            }
            Some(Reaction::Close) => self.windows.retain(|w| &w.info.id != window),
            Some(Reaction::Exit) => {
                if let Some(pid) = pid {
                    self.windows.retain(|w| w.info.pid != Some(pid));
                    self.ended.insert(pid);
                }
            }
            None => {}
        }
    }
}

impl ScriptedWindow {
    fn focusable(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.states.contains(State::Focusable) && !n.states.contains(State::Disabled)
            })
            .map(|(i, _)| i)
            .collect()
    }

    fn move_focus(&mut self, back: bool) {
        let order = self.focusable();
        if order.is_empty() {
            return;
        }
        let at = self.focus.and_then(|f| order.iter().position(|i| *i == f));
        let next = match (at, back) {
            (None, false) => 0,
            (None, true) => order.len() - 1,
            (Some(i), false) => (i + 1) % order.len(),
            (Some(i), true) => (i + order.len() - 1) % order.len(),
        };
        self.set_focus(Some(order[next]));
    }

    fn set_focus(&mut self, to: Option<usize>) {
        for n in &mut self.nodes {
            n.states.remove(State::Focused);
        }
        self.focus = to;
        if let Some(n) = to.and_then(|i| self.nodes.get_mut(i)) {
            n.states.insert(State::Focused);
        }
    }

    /// Indexes from the root down to the deepest element whose bounds hold `p` (the last child
    /// drawn on top wins).
    fn hit(&self, p: Point) -> Vec<usize> {
        let mut path = Vec::new();
        let mut at = 0usize;
        if !self
            .nodes
            .first()
            .and_then(|r| r.bounds)
            .is_some_and(|b| b.contains(p))
        {
            return path;
        }
        loop {
            path.push(at);
            let next = self.nodes[at]
                .children
                .iter()
                .rev()
                .map(|c| *c as usize)
                .find(|c| {
                    self.nodes
                        .get(*c)
                        .and_then(|n| n.bounds)
                        .is_some_and(|b| b.contains(p))
                });
            match next {
                Some(c) => at = c,
                None => return path,
            }
        }
    }

    /// The control that receives a press at `p`: the deepest interactive element on the path.
    fn receiver_at(&self, p: Point) -> Option<usize> {
        let path = self.hit(p);
        path.iter()
            .rev()
            .copied()
            .find(|i| self.nodes[*i].role.is_interactive() || self.nodes[*i].role == Role::Menu)
    }

    fn takes_text(&self, i: usize) -> bool {
        self.nodes.get(i).is_some_and(|n| {
            matches!(
                n.role,
                Role::TextInput | Role::PasswordInput | Role::TextArea
            ) || n.states.contains(State::Editable)
        })
    }

    /// Type-ahead, as list and tree views do: a letter typed on item `i` moves focus to the
    /// next item beside it whose name starts with the letter.
    fn typed_ahead(&self, i: usize, c: char) -> Option<usize> {
        let item = |n: &Node| matches!(n.role, Role::ListItem | Role::TreeItem);
        let node = self.nodes.get(i).filter(|n| item(n))?;
        let siblings: Vec<usize> = (0..self.nodes.len())
            .filter(|&j| self.nodes[j].parent == node.parent && item(&self.nodes[j]))
            .collect();
        let at = siblings.iter().position(|&j| j == i)?;
        let starts = |j: &usize| {
            let name = shown_name(&self.nodes, *j);
            name.chars()
                .next()
                .is_some_and(|first| first.to_lowercase().eq(c.to_lowercase()))
        };
        siblings[at + 1..]
            .iter()
            .chain(&siblings[..at])
            .find(|j| starts(j))
            .copied()
    }

    fn multi_line(&self, i: usize) -> bool {
        self.nodes
            .get(i)
            .is_some_and(|n| n.role == Role::TextArea || n.states.contains(State::MultiLine))
    }

    fn in_menu(&self) -> bool {
        self.focus
            .and_then(|f| self.nodes.get(f))
            .is_some_and(|n| matches!(n.role, Role::MenuItem | Role::Menu))
    }

    fn default_button(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.states.contains(State::Default) && n.role.is_interactive())
    }

    /// What a letter presses while focus is in a menu: an item of the open menu that carries it
    /// (the menu holds the keyboard), or, for a menu showing no items (a menu bar's closed
    /// entry), any control of the window that does.
    fn menu_key(&self, c: char) -> Option<usize> {
        let focus = self.focus?;
        let menu = match self.nodes.get(focus)?.role {
            Role::Menu => focus,
            _ => self.nodes.get(focus)?.parent? as usize,
        };
        let items: Vec<usize> = self
            .nodes
            .get(menu)?
            .children
            .iter()
            .map(|i| *i as usize)
            .filter(|i| self.nodes.get(*i).is_some_and(|n| n.role.is_interactive()))
            .collect();
        if items.is_empty() {
            return self.access_key(c);
        }
        self.access_key_among(c, items.into_iter())
    }

    /// The control whose name marks `c` as its access key (`_Delete` for d).
    fn access_key(&self, c: char) -> Option<usize> {
        self.access_key_among(c, 0..self.nodes.len())
    }

    /// Of `among`, the control whose name marks `c` as its access key.
    fn access_key_among(&self, c: char, mut among: impl Iterator<Item = usize>) -> Option<usize> {
        let want = c.to_lowercase().next().unwrap_or(c);
        among.find(|i| {
            self.nodes[*i].role.is_interactive()
                && shown_name(&self.nodes, *i)
                    .split('_')
                    .nth(1)
                    .and_then(|rest| rest.chars().next())
                    .is_some_and(|k| k.to_lowercase().next() == Some(want))
        })
    }

    fn probe(&self, path: &[usize]) -> Probe {
        let nodes: Vec<Node> = path
            .iter()
            .map(|i| {
                let mut n = self.nodes[*i].clone();
                cu_core::receiver::holds_items(
                    &mut n,
                    self.nodes[*i]
                        .children
                        .iter()
                        .filter_map(|c| self.nodes.get(*c as usize))
                        .map(|c| c.role),
                );
                n.omitted_children = u32::try_from(n.children.len()).unwrap_or(u32::MAX);
                n.children.clear();
                n.parent = None;
                n
            })
            .collect();
        let mut probe = Probe {
            path: nodes,
            inner_labels: Vec::new(),
        };
        if probe.needs_inner_labels() {
            if let Some(r) = probe.receiver_index() {
                let sub = subtree(
                    &self.nodes,
                    path[r],
                    Some(cu_core::receiver::INNER_LABEL_DEPTH),
                );
                probe.inner_labels = Probe::from_subtree(&Snapshot::new(
                    self.info.clone(),
                    DesktopInstance(DESKTOP.into()),
                    (sub, None),
                    std::time::Instant::now(),
                ))
                .inner_labels;
            }
        }
        probe
    }
}

/// What a control shows: its name, else its first label child's.
fn shown_name(nodes: &[Node], i: usize) -> String {
    let node = &nodes[i];
    if !node.name.is_empty() {
        return node.name.clone();
    }
    node.children
        .iter()
        .filter_map(|c| nodes.get(*c as usize))
        .find(|c| c.role.is_text() && !c.name.is_empty())
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

fn actions_of(role: Role) -> Vec<ActionKind> {
    match role {
        Role::Button | Role::MenuItem | Role::Link | Role::Menu => vec![ActionKind::Invoke],
        Role::CheckBox | Role::ToggleButton | Role::Switch => vec![ActionKind::Toggle],
        Role::TextInput | Role::TextArea | Role::PasswordInput => {
            vec![ActionKind::SetText, ActionKind::Focus]
        }
        Role::ListItem | Role::Tab => vec![ActionKind::Select],
        _ => Vec::new(),
    }
}

/// The subtree under `root` as a pre-order arena, `depth` levels deep.
fn subtree(nodes: &[Node], root: usize, depth: Option<u32>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    let mut stack: Vec<(usize, Option<u32>, u32)> = vec![(root, None, 0)];
    while let Some((i, parent, d)) = stack.pop() {
        let index = out.len() as u32;
        let mut node = nodes[i].clone();
        node.parent = parent;
        node.children.clear();
        if let Some(p) = parent {
            out[p as usize].children.push(index);
        }
        let deeper = depth.is_none_or(|max| d < max);
        if deeper {
            for c in nodes[i].children.iter().rev() {
                stack.push((*c as usize, Some(index), d + 1));
            }
        } else {
            node.omitted_children = nodes[i].children.len() as u32;
        }
        out.push(node);
    }
    out
}

fn index_of(id: &ElementIdentity) -> Result<(WindowId, usize)> {
    id.0.rsplit_once('#')
        .and_then(|(w, i)| i.parse().ok().map(|i| (WindowId(w.to_owned()), i)))
        .ok_or_else(|| Error::new(ErrorCode::ElementNotFound, format!("no element {}", id.0)))
}

#[async_trait]
impl Backend for Scripted {
    async fn info(&self) -> Result<BackendInfo> {
        Ok(BackendInfo {
            name: "scripted".into(),
            capabilities: Capabilities {
                accessibility_tree: true,
                semantic_actions: true,
                pointer_input: true,
                keyboard_input: true,
                capture: true,
                window_positions: true,
            },
            desktop: DesktopInstance(DESKTOP.into()),
        })
    }

    async fn health(&self) -> Vec<HealthCheck> {
        vec![HealthCheck {
            name: "scripted".into(),
            ok: true,
            detail: "a scripted desktop".into(),
        }]
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        Ok(self
            .world()
            .windows
            .iter()
            .map(|w| w.info.clone())
            .collect())
    }

    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        let mut w = self.world();
        w.fail(Call::Snapshot)?;
        w.snapshots.push(options.reuse);
        let win = w.window(window)?;
        let root = match &options.subtree {
            Some(id) => {
                let (owner, i) = index_of(id)?;
                if &owner != window || i >= win.nodes.len() {
                    return Err(Error::new(ErrorCode::ElementNotFound, "no such element"));
                }
                i
            }
            None => 0,
        };
        let mut nodes = subtree(&win.nodes, root, options.max_depth);
        nodes.truncate(options.max_nodes.max(1) as usize);
        let count = nodes.len() as u32;
        for n in &mut nodes {
            n.children.retain(|c| *c < count);
        }
        Ok(Snapshot::new(
            win.info.clone(),
            DesktopInstance(DESKTOP.into()),
            (nodes, None),
            std::time::Instant::now(),
        ))
    }

    async fn perform(
        &self,
        window: &WindowId,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()> {
        // A fake's watch may wake once too often; never once too few.
        self.touched();
        let mut w = self.world();
        w.fail(Call::Perform)?;
        let (owner, i) = index_of(element)?;
        let win = w.window(window)?;
        if &owner != window || i >= win.nodes.len() {
            return Err(Error::new(ErrorCode::ElementNotFound, "no such element"));
        }
        let name = shown_name(&win.nodes, i);
        match action {
            SemanticAction::Invoke | SemanticAction::Toggle | SemanticAction::Select => {
                if win.nodes[i].actions.is_empty() {
                    return Err(Error::new(
                        ErrorCode::ActionNotSupported,
                        "nothing to press",
                    ));
                }
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
                w.press(window, i);
            }
            SemanticAction::SetText { text } => {
                if !win.takes_text(i) {
                    return Err(Error::new(ErrorCode::NotEditable, "not a text field"));
                }
                win.nodes[i].value = Some(text.clone());
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
            }
            SemanticAction::Focus => {
                win.set_focus(Some(i));
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
            }
            _ => {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{action:?} is not scripted"),
                ))
            }
        }
        Ok(())
    }

    async fn input(&self, window: &WindowId, event: &InputEvent) -> Result<()> {
        // A fake's watch may wake once too often; never once too few.
        self.touched();
        let mut w = self.world();
        w.fail(Call::Input)?;
        let win = w.window(window)?;
        let origin = win.info.bounds.unwrap_or(Rect::new(0, 0, 0, 0));
        let inside = |p: &Point| p.x >= 0 && p.y >= 0 && p.x < origin.width && p.y < origin.height;
        let points: Vec<Point> = match event {
            InputEvent::Move { at }
            | InputEvent::Click { at, .. }
            | InputEvent::Scroll { at, .. } => vec![*at],
            InputEvent::Drag { from, to, .. } => vec![*from, *to],
            _ => Vec::new(),
        };
        if !points.iter().all(inside) {
            return Err(Error::new(ErrorCode::OutOfWindow, "outside the window"));
        }
        w.events.push(Event::Input(window.clone(), event.clone()));
        match event {
            InputEvent::Click { at, button, .. } => {
                let win = w.window(window)?;
                let target = win.receiver_at(*at);
                if let Some(t) = target {
                    if win.nodes[t].states.contains(State::Focusable) {
                        win.set_focus(Some(t));
                    }
                    if *button == MouseButton::Left {
                        w.press(window, t);
                    }
                }
            }
            InputEvent::Drag { from, to, button } => {
                let win = w.window(window)?;
                let (a, b) = (win.receiver_at(*from), win.receiver_at(*to));
                if let (Some(a), Some(b), MouseButton::Left) = (a, b, button) {
                    if a == b {
                        w.press(window, a);
                    }
                }
            }
            InputEvent::Key { combo } => {
                type_key(&mut w, window, combo.keys())?;
            }
            InputEvent::Text { text } => {
                for c in text.chars() {
                    type_key(&mut w, window, &[keys::key_of_char(c)])?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    async fn capture(&self, window: &WindowId) -> Result<WindowImage> {
        let mut w = self.world();
        let win = w.window(window)?;
        let b = win.info.bounds.unwrap_or(Rect::new(0, 0, 1, 1));
        let (width, height) = (b.width.max(1) as u32, b.height.max(1) as u32);
        Ok(WindowImage {
            width,
            height,
            rgba: (0..width * height)
                .flat_map(|i| [(i % 251) as u8, 0, 0, 255])
                .collect(),
        })
    }

    async fn activate(&self, window: &WindowId) -> Result<()> {
        let mut w = self.world();
        w.fail(Call::Activate)?;
        w.window(window)?;
        w.events.push(Event::Activate(window.clone()));
        Ok(())
    }

    async fn read_clipboard(&self) -> Result<String> {
        Ok(self.world().clipboard.clone())
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        self.world().clipboard = text.to_owned();
        Ok(())
    }

    async fn watch(&self, window: &WindowId) -> Result<Box<dyn Watch>> {
        if !self.world().typed_events {
            return Ok(Box::new(WorldWatch(self.changes.subscribe())));
        }
        Ok(Box::new(TypedWatch {
            world: self.world.clone(),
            wake: WorldWatch(self.changes.subscribe()),
            window: window.clone(),
            last: Look::of(&self.world, window),
        }))
    }

    async fn change_window(&self, window: &WindowId, change: &WindowChange) -> Result<()> {
        // A fake's watch may wake once too often; never once too few.
        self.touched();
        let mut w = self.world();
        w.window(window)?;
        w.events.push(Event::Window(window.clone(), *change));
        let reaction = w.reactions.get(CLOSE_REQUEST).cloned();
        let Some(win) = w.windows.iter_mut().find(|x| &x.info.id == window) else {
            return Ok(());
        };
        let bounds = win.info.bounds.unwrap_or(Rect::new(0, 0, 400, 300));
        match change {
            WindowChange::Focus | WindowChange::Restore => win.info.minimized = false,
            WindowChange::Move { to } => {
                win.info.bounds = Some(Rect::new(to.x, to.y, bounds.width, bounds.height));
            }
            WindowChange::Resize { size } => {
                win.info.bounds = Some(Rect::new(bounds.x, bounds.y, size.width, size.height));
            }
            WindowChange::Minimize => win.info.minimized = true,
            WindowChange::Maximize => win.info.bounds = Some(Rect::new(0, 0, 1920, 1080)),
            WindowChange::Close => match reaction {
                Some(Reaction::Open(fixture)) => {
                    if let Ok(s) = outline_fixture::parse(&fixture) {
                        w.add(s, Point::new(60, 60));
                    }
                }
                _ => w.windows.retain(|x| &x.info.id != window),
            },
            _ => {}
        }
        Ok(())
    }

    async fn element_at(&self, window: &WindowId, at: Point) -> Result<Probe> {
        let mut w = self.world();
        w.fail(Call::ElementAt)?;
        let win = w.window(window)?;
        let path = win.hit(at);
        if path.len() <= 1 {
            return Ok(Probe::nothing());
        }
        Ok(win.probe(&path))
    }

    async fn process_running(&self, pid: u32) -> Option<bool> {
        Some(!self.world().ended.contains(&pid))
    }

    async fn focused(&self, window: &WindowId) -> Result<Probe> {
        let mut w = self.world();
        w.fail(Call::Focused)?;
        let win = w.window(window)?;
        // As AT-SPI answers it: a focused menu item comes with the menu that holds it.
        Ok(match win.focus {
            Some(f) => match win.nodes.get(f).and_then(|n| n.parent).map(|p| p as usize) {
                Some(menu)
                    if matches!(
                        win.nodes[f].role,
                        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
                    ) && win.nodes.get(menu).is_some_and(|m| m.role == Role::Menu) =>
                {
                    win.probe(&[menu, f])
                }
                _ => win.probe(&[f]),
            },
            None => Probe::nothing(),
        })
    }

    async fn ancestors(&self, window: &WindowId, element: &ElementIdentity) -> Result<Vec<Node>> {
        let (owner, index) = index_of(element)?;
        if &owner != window {
            return Err(Error::new(ErrorCode::ElementNotFound, "not in this window"));
        }
        let mut w = self.world();
        let win = w.window(window)?;
        let mut out = Vec::new();
        let mut at = win.nodes.get(index).and_then(|n| n.parent);
        while let Some(i) = at {
            let Some(node) = win.nodes.get(i as usize) else {
                break;
            };
            let mut alone = node.clone();
            alone.children.clear();
            alone.parent = None;
            out.push(alone);
            at = node.parent;
        }
        out.reverse();
        Ok(out)
    }
}

/// One key (with modifiers) as a toolkit handles it.
fn type_key(w: &mut World, window: &WindowId, keys: &[Key]) -> Result<()> {
    let held = |k: NamedKey| keys.contains(&Key::Named(k));
    let (shift, ctrl, alt) = (
        held(NamedKey::Shift),
        held(NamedKey::Ctrl),
        held(NamedKey::Alt),
    );
    let Some(last) = keys
        .iter()
        .rev()
        .find(|k| !matches!(k, Key::Named(n) if n.is_modifier()))
    else {
        return Ok(());
    };
    let win = w.window(window)?;
    let focus = win.focus;
    match last {
        Key::Named(NamedKey::Tab) => win.move_focus(shift),
        Key::Named(NamedKey::Return | NamedKey::KpEnter) => match focus {
            Some(f) if win.takes_text(f) && win.multi_line(f) && !ctrl => {
                let v = win.nodes[f].value.get_or_insert_with(String::new);
                v.push('\n');
            }
            Some(f) if cu_core::consequence::return_stays(&win.nodes[f]) && !win.takes_text(f) => {
                w.press(window, f)
            }
            // A check box, a list item or a single-line field does not take Return: the toolkit
            // hands it to the window's default button (GTK, Qt and browsers alike).
            _ => {
                if let Some(d) = win.default_button() {
                    w.press(window, d);
                }
            }
        },
        Key::Char(' ') if !alt => match focus {
            Some(f) if win.takes_text(f) => {
                win.nodes[f].value.get_or_insert_with(String::new).push(' ');
            }
            Some(f) => w.press(window, f),
            None => {}
        },
        Key::Char(c) if alt && !ctrl => {
            if let Some(t) = win.access_key(*c) {
                w.press(window, t);
            }
        }
        Key::Char(c) if !ctrl && !alt => {
            if win.in_menu() {
                if let Some(t) = win.menu_key(*c) {
                    w.press(window, t);
                }
            } else if let Some(f) = focus.filter(|f| win.takes_text(*f)) {
                win.nodes[f].value.get_or_insert_with(String::new).push(*c);
            } else if let Some(next) = focus.and_then(|f| win.typed_ahead(f, *c)) {
                win.set_focus(Some(next));
            }
        }
        Key::Named(NamedKey::Delete) => {
            if let Some(f) = focus.filter(|f| !win.takes_text(*f)) {
                let name = shown_name(&win.nodes, f);
                w.presses.push(format!("Delete key on {name}"));
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIALOG: &str = "title: Question\n---\ndialog \"Question\" @0,0 300x100\n  label \"Delete the file?\" @10,10 200x20\n  button \"Cancel\" @10,60 80x30 [focused]\n  button \"_Delete\" @100,60 80x30 [default]\n";

    fn run<F: std::future::Future>(f: F) -> F::Output {
        match tokio::runtime::Builder::new_current_thread().build() {
            Ok(rt) => rt.block_on(f),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn tab_moves_focus_and_space_presses_like_a_toolkit() {
        let s = Scripted::new();
        let w = s.open(DIALOG, Point::new(100, 100)).unwrap();
        run(async {
            let key = |k: &str| InputEvent::Key {
                combo: k.parse().unwrap(),
            };
            assert!(s.input(&w, &key("space")).await.is_ok());
            assert_eq!(s.presses(), vec!["Cancel".to_owned()]);
            assert!(s.input(&w, &key("Tab")).await.is_ok());
            let f = s.focused(&w).await.unwrap_or_default();
            assert_eq!(f.shown_name(), "_Delete");
            assert!(s
                .input(&w, &InputEvent::Text { text: " ".into() })
                .await
                .is_ok());
            assert_eq!(s.presses().last().map(String::as_str), Some("_Delete"));
            let hit = s
                .element_at(&w, Point::new(110, 70))
                .await
                .unwrap_or_default();
            assert_eq!(hit.receiver().map(|n| n.name.as_str()), Some("_Delete"));
            assert!(s
                .element_at(&w, Point::new(290, 95))
                .await
                .unwrap_or_default()
                .is_empty());
            assert!(s.input(&w, &key("alt+d")).await.is_ok());
            assert_eq!(s.presses().len(), 3);
        });
    }
}
