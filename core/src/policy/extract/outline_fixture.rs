//! Snapshots written by hand: the format of the anonymized profile fixtures
//! (`tests/fixtures/extract/<profile>/*.outline`), short enough to read and review.
//!
//! ```text
//! app: Claude
//! title: Fix login - Claude
//! ---
//! window "Fix login - Claude"
//!   button "Stop response" [focusable]
//!   text_input "Message" ="draft text"
//!   label "Running 12 tests"
//! ```
//!
//! Header lines `key: value` (`app`, `title`, `truncated: yes`) end at `---`. Each element line is
//! indented two spaces per level under its parent: a role (the serde name of
//! [`Role`]), an optional quoted name, an optional `=` and quoted value, an optional `~` and quoted
//! description (a tooltip), optional window-relative
//! bounds `@x,y wxh`, and optional `[state, state]`. Inside quotes `\"`, `\\` and `\n` escape. Lines starting with `#` are
//! comments.

use crate::model::element::{
    DesktopInstance, ElementIdentity, Node, Snapshot, State, StateSet, Truncation, TruncationReason,
};
use crate::model::role::Role;
use crate::model::window::{WindowId, WindowInfo};

/// Parses a fixture; the error names the line.
pub fn parse(text: &str) -> Result<Snapshot, String> {
    let mut window = WindowInfo {
        id: WindowId("fixture".into()),
        app: String::new(),
        title: String::new(),
        pid: None,
        bounds: None,
        focused: true,
        minimized: false,
        no_tree: false,
    };
    let mut truncated = None;
    let mut lines = text.lines().enumerate();
    for (_, line) in lines.by_ref() {
        let line = line.trim();
        if line == "---" {
            break;
        }
        match line.split_once(':') {
            Some(("app", v)) => window.app = v.trim().to_owned(),
            Some(("title", v)) => window.title = v.trim().to_owned(),
            Some(("truncated", _)) => {
                truncated = Some(Truncation {
                    reason: TruncationReason::NodeLimit,
                    omitted: 1,
                })
            }
            _ => {}
        }
    }
    let mut nodes: Vec<Node> = Vec::new();
    // (depth, index) of the open ancestors.
    let mut open: Vec<(usize, u32)> = Vec::new();
    for (number, raw) in lines {
        let content = raw.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = raw.len() - content.len();
        let where_ = |what: &str| format!("line {}: {what}", number + 1);
        if indent % 2 != 0 {
            return Err(where_("indent by two spaces per level"));
        }
        let depth = indent / 2;
        while open.last().is_some_and(|(d, _)| *d >= depth) {
            open.pop();
        }
        let parent = open.last().map(|(_, i)| *i);
        if parent.is_none() && !nodes.is_empty() {
            return Err(where_("only one root element"));
        }
        if parent.is_none() && depth != 0 {
            return Err(where_("the root is not indented"));
        }
        let mut node = element(content).map_err(|e| where_(&e))?;
        let index = u32::try_from(nodes.len()).map_err(|_| where_("too many elements"))?;
        node.parent = parent;
        node.identity = ElementIdentity(format!("fixture/{index}"));
        if let Some(p) = parent.and_then(|p| nodes.get_mut(p as usize)) {
            p.children.push(index);
        }
        nodes.push(node);
        open.push((depth, index));
    }
    if nodes.is_empty() {
        return Err("no elements after ---".into());
    }
    Ok(Snapshot {
        window,
        desktop: DesktopInstance("fixture".into()),
        nodes,
        truncated,
        elapsed_ms: 0,
        read: Default::default(),
    })
}

fn element(text: &str) -> Result<Node, String> {
    let (role_word, mut rest) = text.split_once(' ').unwrap_or((text, ""));
    let role: Role = serde_json::from_value(serde_json::Value::String(role_word.into()))
        .map_err(|_| format!("unknown role {role_word:?}"))?;
    let mut node = Node {
        role,
        name: String::new(),
        value: None,
        description: None,
        toolkit_id: None,
        states: StateSet::default(),
        bounds: None,
        actions: Vec::new(),
        identity: ElementIdentity(String::new()),
        parent: None,
        children: Vec::new(),
        omitted_children: 0,
        grid: None,
    };
    rest = rest.trim_start();
    if rest.starts_with('"') {
        let (name, after) = quoted(rest)?;
        node.name = name;
        rest = after.trim_start();
    }
    if let Some(after) = rest.strip_prefix('=') {
        let (value, after) = quoted(after.trim_start())?;
        node.value = Some(value);
        rest = after.trim_start();
    }
    if let Some(after) = rest.strip_prefix('~') {
        let (description, after) = quoted(after.trim_start())?;
        node.description = Some(description);
        rest = after.trim_start();
    }
    if let Some(after) = rest.strip_prefix('@') {
        let (bounds, after) = bounds(after)?;
        node.bounds = Some(bounds);
        rest = after.trim_start();
    }
    if let Some(after) = rest.strip_prefix('[') {
        let (list, after) = after.split_once(']').ok_or("unclosed [states]")?;
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let state = State::parse(word).ok_or_else(|| format!("unknown state {word:?}"))?;
            node.states.insert(state);
        }
        rest = after.trim_start();
    }
    if !rest.is_empty() {
        return Err(format!("unexpected {rest:?}"));
    }
    Ok(node)
}

/// `x,y wxh` (window-relative bounds) at the start of `text`, and what follows it.
fn bounds(text: &str) -> Result<(crate::model::geometry::Rect, &str), String> {
    let bad = || format!("bounds are written @x,y wxh, not {text:?}");
    let (origin, rest) = text.split_once(' ').ok_or_else(bad)?;
    let rest = rest.trim_start();
    let (size, after) = rest.split_once(' ').unwrap_or((rest, ""));
    let (x, y) = origin.split_once(',').ok_or_else(bad)?;
    let (w, h) = size.split_once('x').ok_or_else(bad)?;
    let num = |v: &str| v.trim().parse::<i32>().map_err(|_| bad());
    Ok((
        crate::model::geometry::Rect::new(num(x)?, num(y)?, num(w)?, num(h)?),
        after,
    ))
}

/// A `"…"` string at the start of `text`, and what follows it.
fn quoted(text: &str) -> Result<(String, &str), String> {
    let body = text.strip_prefix('"').ok_or("expected a quoted string")?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &body[at + 1..])),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, escaped)) => out.push(escaped),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("unclosed quote".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_parses_into_a_tree_with_parents_states_and_values() {
        let s = parse(
            "app: Claude\ntitle: T\n---\nwindow \"T\"\n  group\n    button \"Stop \\\"now\\\"\" [focusable, focused]\n  text_input \"Message\" =\"draft\"\n",
        )
        .unwrap();
        assert_eq!(s.window.app, "Claude");
        assert_eq!(s.nodes.len(), 4);
        assert_eq!(s.nodes[0].children, vec![1, 3]);
        assert_eq!(s.nodes[2].name, "Stop \"now\"");
        assert_eq!(s.nodes[2].parent, Some(1));
        assert!(s.nodes[2].states.contains(State::Focused));
        assert_eq!(s.nodes[3].value.as_deref(), Some("draft"));
        let placed = parse("---\nbutton \"OK\" @10,20 30x40 [focused]\n").unwrap();
        assert_eq!(
            placed.nodes[0].bounds,
            Some(crate::model::geometry::Rect::new(10, 20, 30, 40))
        );
        assert!(placed.nodes[0].states.contains(State::Focused));
    }

    #[test]
    fn mistakes_name_their_line() {
        for (bad, says) in [
            ("---\nwindow\n   button", "line 3"),
            ("---\nwidget \"x\"", "unknown role"),
            ("---\nbutton \"x", "unclosed quote"),
            ("---\nbutton [shiny]", "unknown state"),
            ("---\nwindow\nwindow", "only one root"),
            ("---\n", "no elements"),
            ("---\nbutton @1,2", "bounds are written"),
            ("---\nbutton @1,2 3y4", "bounds are written"),
        ] {
            let e = parse(bad).err().unwrap_or_default();
            assert!(e.contains(says), "{bad:?} gave {e:?}");
        }
    }
}
