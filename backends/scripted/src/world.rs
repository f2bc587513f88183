//! The scripted world: its windows and how a toolkit behaves in them where the safety gate
//! cares (focus on Tab and clicks, what space and Return press, access keys, menus, hit tests).

use std::collections::HashMap;

use cu_core::model::element::{
    ActionKind, DesktopInstance, ElementIdentity, Node, Snapshot, State,
};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::keys::{Key, NamedKey};
use cu_core::model::receiver::Probe;
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::extract::outline_fixture;
use cu_core::{Error, ErrorCode, Result};

use crate::{Call, Event, Reaction, DESKTOP};

pub(crate) struct ScriptedWindow {
    pub(crate) info: WindowInfo,
    pub(crate) nodes: Vec<Node>,
    pub(crate) focus: Option<usize>,
}

#[derive(Default)]
pub(crate) struct World {
    pub(crate) windows: Vec<ScriptedWindow>,
    pub(crate) events: Vec<Event>,
    pub(crate) presses: Vec<String>,
    pub(crate) reactions: HashMap<String, Reaction>,
    /// The next call of a kind fails with this code; `true` when nothing reached the app.
    pub(crate) failures: HashMap<Call, (ErrorCode, bool)>,
    pub(crate) panics: std::collections::HashSet<Call>,
    pub(crate) next_window: u32,
    pub(crate) clipboard: String,
    /// Processes ended by [`Reaction::Exit`].
    pub(crate) ended: std::collections::HashSet<u32>,
    /// Snapshots taken: whether each allowed a kept walk (`SnapshotOptions::reuse`).
    pub(crate) snapshots: Vec<bool>,
    /// How many times the focused element was asked for.
    pub(crate) focus_reads: usize,
    /// Watches tell changes apart ([`crate::Scripted::with_typed_events`]).
    pub(crate) typed_events: bool,
    /// Semantic actions an element (by name) accepts and then ignores ([`crate::Ignored`]).
    pub(crate) ignored: std::collections::HashSet<(String, crate::Ignored)>,
}

impl World {
    pub(crate) fn add(&mut self, mut snapshot: Snapshot, origin: Point) -> WindowId {
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

    pub(crate) fn window(&mut self, id: &WindowId) -> Result<&mut ScriptedWindow> {
        self.windows
            .iter_mut()
            .find(|w| &w.info.id == id)
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, format!("no window {id}")))
    }

    pub(crate) fn fail(&mut self, call: Call) -> Result<()> {
        if self.panics.remove(&call) {
            panic!("scripted panic in {call:?}");
        }
        match self.failures.remove(&call) {
            Some((code, unsent)) => {
                let e = Error::new(code, format!("scripted failure of {call:?}"));
                Err(if unsent { e.before_sending() } else { e })
            }
            None => Ok(()),
        }
    }

    pub(crate) fn rename(&mut self, from: &str, to: &str) {
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
    pub(crate) fn press(&mut self, window: &WindowId, index: usize) {
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
            Role::Menu if cu_core::model::receiver::opens_menu_only(node) => {
                // Opening a menu shows its items; nothing is pressed (a menu without items
                // acts like a button: a web page's `<div role="menu" onclick=…>`).
                node.states.insert(State::Expanded);
                return;
            }
            _ => {}
        }
        let name = shown_name(&win.nodes, index);
        // An option of a drop-down becomes its value (GTK 3: and its name), popup closed.
        if matches!(win.nodes[index].role, Role::MenuItem | Role::ListItem) {
            let combo = std::iter::successors(win.nodes[index].parent, |p| {
                win.nodes.get(*p as usize).and_then(|n| n.parent)
            })
            .take(3)
            .find(|p| win.nodes.get(*p as usize).map(|n| n.role) == Some(Role::ComboBox));
            if let Some(combo) = combo.and_then(|c| win.nodes.get_mut(c as usize)) {
                combo.value = Some(name.clone());
            }
        }
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
    pub(crate) fn focusable(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.states.contains(State::Focusable) && !n.states.contains(State::Disabled)
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub(crate) fn move_focus(&mut self, back: bool) {
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

    pub(crate) fn set_focus(&mut self, to: Option<usize>) {
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
    pub(crate) fn hit(&self, p: Point) -> Vec<usize> {
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
    pub(crate) fn receiver_at(&self, p: Point) -> Option<usize> {
        let path = self.hit(p);
        path.iter()
            .rev()
            .copied()
            .find(|i| self.nodes[*i].role.is_interactive() || self.nodes[*i].role == Role::Menu)
    }

    pub(crate) fn takes_text(&self, i: usize) -> bool {
        self.nodes.get(i).is_some_and(|n| {
            matches!(
                n.role,
                Role::TextInput | Role::PasswordInput | Role::TextArea
            ) || n.states.contains(State::Editable)
        })
    }

    /// Type-ahead, as list and tree views do: a letter typed on item `i` moves focus to the
    /// next item beside it whose name starts with the letter.
    pub(crate) fn typed_ahead(&self, i: usize, c: char) -> Option<usize> {
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

    pub(crate) fn multi_line(&self, i: usize) -> bool {
        self.nodes
            .get(i)
            .is_some_and(|n| n.role == Role::TextArea || n.states.contains(State::MultiLine))
    }

    pub(crate) fn in_menu(&self) -> bool {
        self.focus
            .and_then(|f| self.nodes.get(f))
            .is_some_and(|n| matches!(n.role, Role::MenuItem | Role::Menu))
    }

    pub(crate) fn default_button(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.states.contains(State::Default) && n.role.is_interactive())
    }

    /// What a letter presses while focus is in a menu: an item of the open menu that carries it
    /// (the menu holds the keyboard), or, for a menu showing no items (a menu bar's closed
    /// entry), any control of the window that does.
    pub(crate) fn menu_key(&self, c: char) -> Option<usize> {
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
    pub(crate) fn access_key(&self, c: char) -> Option<usize> {
        self.access_key_among(c, 0..self.nodes.len())
    }

    /// Of `among`, the control whose name marks `c` as its access key.
    pub(crate) fn access_key_among(
        &self,
        c: char,
        mut among: impl Iterator<Item = usize>,
    ) -> Option<usize> {
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

    pub(crate) fn probe(&self, path: &[usize]) -> Probe {
        let nodes: Vec<Node> = path
            .iter()
            .map(|i| {
                let mut n = self.nodes[*i].clone();
                cu_core::model::receiver::holds_items(
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
            in_sheet: false,
        };
        if probe.needs_inner_labels() {
            if let Some(r) = probe.receiver_index() {
                let sub = subtree(
                    &self.nodes,
                    path[r],
                    Some(cu_core::model::receiver::INNER_LABEL_DEPTH),
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
pub(crate) fn shown_name(nodes: &[Node], i: usize) -> String {
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

pub(crate) fn actions_of(role: Role) -> Vec<ActionKind> {
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
pub(crate) fn subtree(nodes: &[Node], root: usize, depth: Option<u32>) -> Vec<Node> {
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

pub(crate) fn index_of(id: &ElementIdentity) -> Result<(WindowId, usize)> {
    id.0.rsplit_once('#')
        .and_then(|(w, i)| i.parse().ok().map(|i| (WindowId(w.to_owned()), i)))
        .ok_or_else(|| Error::new(ErrorCode::ElementNotFound, format!("no element {}", id.0)))
}

/// One key (with modifiers) as a toolkit handles it.
pub(crate) fn type_key(w: &mut World, window: &WindowId, keys: &[Key]) -> Result<()> {
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
            Some(f)
                if cu_core::policy::consequence::return_stays(&win.nodes[f])
                    && !win.takes_text(f) =>
            {
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
