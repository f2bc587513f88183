//! [`Backend`] for [`Scripted`]: every call answered from the scripted world, recorded, and
//! failed or panicked on request.

use async_trait::async_trait;
use cu_core::model::backend::{
    Backend, BackendInfo, Capabilities, HealthCheck, InputEvent, MouseButton, SemanticAction,
    Watch, WindowChange, WindowImage,
};
use cu_core::model::element::{
    DesktopInstance, ElementIdentity, Node, Snapshot, SnapshotOptions, State,
};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::keys::{self};
use cu_core::model::receiver::Probe;
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::extract::outline_fixture;
use cu_core::{Error, ErrorCode, Result};

use crate::watch::{Look, TypedWatch, WorldWatch};
use crate::world::{index_of, shown_name, subtree, type_key};
use crate::Ignored;
use crate::{Call, Event, Reaction, Scripted, CLOSE_REQUEST, DESKTOP};

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
            SemanticAction::Invoke
            | SemanticAction::Toggle
            | SemanticAction::Select
            | SemanticAction::Choose => {
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
                if !w.ignored.contains(&(name.clone(), Ignored::Value)) {
                    let win = w.window(window)?;
                    win.nodes[i].value = Some(text.clone());
                }
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
            }
            SemanticAction::ScrollIntoView => {
                // The page scrolls: what its nearest document or scroll pane holds (else
                // everything but the window) moves by what brings the element inside the window.
                let frame = win.nodes.first().and_then(|n| n.bounds);
                let scroller = std::iter::successors(win.nodes[i].parent, |p| {
                    win.nodes.get(*p as usize).and_then(|n| n.parent)
                })
                .find(|p| {
                    win.nodes
                        .get(*p as usize)
                        .is_some_and(|n| matches!(n.role, Role::Document | Role::ScrollPane))
                });
                let inside = |mut at: Option<u32>| {
                    let Some(scroller) = scroller else {
                        return true;
                    };
                    while let Some(p) = at {
                        if p == scroller {
                            return true;
                        }
                        at = win.nodes.get(p as usize).and_then(|n| n.parent);
                    }
                    false
                };
                let (Some(at), Some(frame)) = (win.nodes[i].bounds, frame) else {
                    return Err(
                        Error::new(ErrorCode::ActionNotSupported, "nothing to scroll to")
                            .before_sending(),
                    );
                };
                let dy = if at.y + at.height > frame.height {
                    at.y + at.height - frame.height + 10
                } else if at.y < 0 {
                    at.y - 10
                } else {
                    0
                };
                let moved: Vec<bool> = win.nodes.iter().map(|n| inside(n.parent)).collect();
                for (node, moved) in win.nodes.iter_mut().zip(moved).skip(1) {
                    if let Some(b) = node.bounds.as_mut().filter(|_| moved) {
                        b.y -= dy;
                    }
                }
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
            }
            SemanticAction::Focus => {
                let ignores = |what| w.ignored.contains(&(name.clone(), what));
                if !ignores(Ignored::Focus) && !ignores(Ignored::FocusAction) {
                    let win = w.window(window)?;
                    win.set_focus(Some(i));
                }
                w.events
                    .push(Event::Perform(window.clone(), name, action.clone()));
            }
            _ => {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{action:?} is not scripted"),
                )
                .before_sending())
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
        let points: Vec<Point> = match event.unheld() {
            InputEvent::Move { at }
            | InputEvent::Click { at, .. }
            | InputEvent::Button { at, .. }
            | InputEvent::Scroll { at, .. } => vec![*at],
            InputEvent::Drag { from, to, .. } => vec![*from, *to],
            _ => Vec::new(),
        };
        if !points.iter().all(inside) {
            return Err(Error::new(ErrorCode::OutOfWindow, "outside the window"));
        }
        w.events.push(Event::Input(window.clone(), event.clone()));
        match event.unheld() {
            // A release of the primary button over an element presses it, as a click does.
            InputEvent::Button {
                at,
                button: MouseButton::Left,
                pressed: false,
            } => {
                let win = w.window(window)?;
                if let Some(t) = win.receiver_at(*at) {
                    w.press(window, t);
                }
            }
            InputEvent::Click { at, button, .. } => {
                let ignored = w.ignored.clone();
                let win = w.window(window)?;
                let target = win.receiver_at(*at);
                if let Some(t) = target {
                    let name = shown_name(&win.nodes, t);
                    if win.nodes[t].states.contains(State::Focusable)
                        && !ignored.contains(&(name, Ignored::Focus))
                    {
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

    async fn covered(&self, window: &WindowId) -> Result<bool> {
        // Windows opened later lie above the ones before them.
        let w = self.world();
        let at = w
            .windows
            .iter()
            .position(|x| &x.info.id == window)
            .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "no such window"))?;
        let bounds = w.windows[at].info.bounds;
        Ok(w.windows[at + 1..].iter().any(|above| {
            above.info.pid != w.windows[at].info.pid
                && matches!((above.info.bounds, bounds), (Some(a), Some(b)) if a.intersection(&b).is_some())
        }))
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
        w.focus_reads += 1;
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
