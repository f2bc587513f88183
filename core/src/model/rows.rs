//! Tables read as rows: a table, grid, tree or list with columns, as one line per row with its
//! header once (`e49 row 12: Oak chair | 49.90 | 7 | e88 button "Add"`).
//!
//! What is a row depends on the toolkit: the browsers give `row` elements holding cells,
//! a tree or list gives items holding cells, and GTK 3's tree view gives its cells flat under the
//! table (then a row is the cells that share a line on screen, or one header's worth of cells).
//! A row whose cells are all column headers is the header. Pure: the outline hands out the ids.

use std::fmt::Write as _;

use crate::model::element::Snapshot;
use crate::model::node::Node;
use crate::model::role::Role;

/// One row of a table: the element that holds it, if the toolkit has one, and its cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// The row element (`None` for GTK 3's flat cells).
    pub(crate) node: Option<usize>,
    /// Its cells (or, in a list, its item), in reading order.
    pub(crate) cells: Vec<usize>,
}

/// A table's header (its column names) and its data rows, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Table {
    /// The column headers, when it has them.
    pub(crate) header: Vec<usize>,
    /// Every data row, in order; `rows.len()` is the true total the tree holds (for a
    /// spreadsheet, the rows on screen).
    pub(crate) rows: Vec<Row>,
    /// A spreadsheet's sheet: rows are numbered as the sheet numbers them, and each cell is
    /// shown by its id, name and value (`e21 A3 Pears`), blank ones left out.
    pub(crate) sheet: bool,
}

impl Table {
    /// The number a person calls row `at` by: its place in the table, or a sheet's row number.
    pub(crate) fn number(&self, snapshot: &Snapshot, at: usize) -> usize {
        let sheet_row = || {
            let cell = snapshot.nodes.get(*self.rows.get(at)?.cells.first()?)?;
            let digits: String = cell
                .name
                .trim()
                .chars()
                .skip_while(char::is_ascii_uppercase)
                .collect();
            digits.parse().ok()
        };
        match self.sheet {
            true => sheet_row().unwrap_or(at + 1),
            false => at + 1,
        }
    }
}

/// Roles that hold rows.
pub(crate) fn is_table(role: Role) -> bool {
    matches!(role, Role::Table | Role::Tree | Role::List)
}

fn is_row(role: Role) -> bool {
    matches!(role, Role::Row | Role::TreeItem | Role::ListItem)
}

fn is_cell(role: Role) -> bool {
    matches!(role, Role::Cell | Role::ColumnHeader | Role::RowHeader)
}

/// The table a node belongs to, and the row within it, when the node is a cell of a table, a
/// row, or inside a cell (a link in a cell): `(table, row element or first cell)`.
pub(crate) fn row_of(snapshot: &Snapshot, index: usize) -> Option<(usize, usize)> {
    let mut at = Some(index);
    let mut cell = None;
    for _ in 0..6 {
        let i = at?;
        let node = snapshot.nodes.get(i)?;
        if is_table(node.role) {
            // A row is only a row when it has cells: a plain list's item is not.
            return cell.map(|c| (i, c));
        }
        if is_row(node.role)
            && node
                .children
                .iter()
                .any(|c| get(snapshot, *c).is_some_and(|c| is_cell(c.role)))
        {
            cell = Some(i);
        } else if is_cell(node.role) {
            // The outermost cell: GTK 3 nests a file's icon and name cells in one.
            cell = Some(i);
        }
        at = node.parent.map(|p| p as usize);
    }
    None
}

fn get(snapshot: &Snapshot, index: u32) -> Option<&Node> {
    snapshot.nodes.get(index as usize)
}

/// Which data row of `table` holds `anchor` (a row element, or a flat cell), 0-based.
pub(crate) fn position(table: &Table, anchor: usize) -> Option<usize> {
    table
        .rows
        .iter()
        .position(|r| r.node == Some(anchor) || r.node.is_none() && r.cells.contains(&anchor))
}

/// What a person would call a table: its name, else the heading just before it (a web page's
/// "Tier 1 with Host Tools" above an unnamed `<table>`).
pub(crate) fn table_name(snapshot: &Snapshot, table: usize) -> String {
    let Some(node) = snapshot.nodes.get(table) else {
        return String::new();
    };
    if !node.name.trim().is_empty() {
        return node.name.trim().to_owned();
    }
    let Some(parent) = node.parent.and_then(|p| get(snapshot, p)) else {
        return String::new();
    };
    let at = parent
        .children
        .iter()
        .position(|c| *c as usize == table)
        .unwrap_or(0);
    parent.children[..at]
        .iter()
        .rev()
        .take(8)
        .filter_map(|c| get(snapshot, *c))
        .take_while(|c| !is_table(c.role))
        .find(|c| c.role == Role::Heading)
        .map(|h| own_text(snapshot, h))
        .unwrap_or_default()
}

/// The rows of the table at `table`.
pub(crate) fn table(snapshot: &Snapshot, table: usize) -> Table {
    let mut out = Table::default();
    let Some(node) = snapshot.nodes.get(table) else {
        return out;
    };
    out.sheet = node.grid.is_some();
    // Rows anywhere under the table (row groups between), not inside a nested table.
    let mut flat = Vec::new();
    let mut stack: Vec<u32> = node.children.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let Some(child) = get(snapshot, i) else {
            continue;
        };
        if is_row(child.role) {
            let cells: Vec<usize> = child
                .children
                .iter()
                .filter(|c| get(snapshot, **c).is_some_and(|c| is_cell(c.role)))
                .map(|c| *c as usize)
                .collect();
            let row = Row {
                node: Some(i as usize),
                cells: if cells.is_empty() {
                    vec![i as usize]
                } else {
                    cells
                },
            };
            push(snapshot, &mut out, row);
            // A tree's item holds its child items.
            stack.extend(
                child
                    .children
                    .iter()
                    .rev()
                    .filter(|c| get(snapshot, **c).is_some_and(|c| is_row(c.role))),
            );
        } else if is_cell(child.role) {
            flat.push(i as usize);
        } else if !is_table(child.role) {
            stack.extend(child.children.iter().rev());
        }
    }
    if out.rows.is_empty() && out.header.is_empty() {
        for row in flat_rows(snapshot, &flat) {
            push(snapshot, &mut out, row);
        }
    }
    if out.sheet {
        // A sheet's empty rows are no rows a person reads.
        out.rows.retain(|r| {
            r.cells.iter().any(|c| {
                snapshot
                    .nodes
                    .get(*c)
                    .is_some_and(|n| !sheet_value(n).is_empty())
            })
        });
    }
    out
}

/// Files a row as the header (all its cells are column headers, and none came before) or as
/// data.
fn push(snapshot: &Snapshot, table: &mut Table, row: Row) {
    let headers = row
        .cells
        .iter()
        .all(|c| snapshot.nodes.get(*c).map(|n| n.role) == Some(Role::ColumnHeader));
    if headers && table.header.is_empty() && table.rows.is_empty() {
        table.header = row.cells;
    } else {
        table.rows.push(row);
    }
}

/// GTK 3's tree view gives its cells flat: its column headers first, then each row's cells.
/// A row is the cells on one line (same top and height); without positions, one header's
/// worth of cells.
fn flat_rows(snapshot: &Snapshot, cells: &[usize]) -> Vec<Row> {
    let (headers, cells): (Vec<usize>, Vec<usize>) = cells
        .iter()
        .partition(|c| snapshot.nodes.get(**c).map(|n| n.role) == Some(Role::ColumnHeader));
    let mut rows = Vec::new();
    if !headers.is_empty() {
        rows.push(Row {
            node: None,
            cells: headers.clone(),
        });
    }
    let line = |c: &usize| {
        snapshot
            .nodes
            .get(*c)
            .and_then(|n| n.bounds)
            .map(|b| (b.y, b.height))
    };
    let width = headers.len().max(1);
    let mut current: Vec<usize> = Vec::new();
    for cell in cells {
        let same_line = match (current.first().and_then(line), line(&cell)) {
            (Some(a), Some(b)) => a == b,
            _ => current.len() < width,
        };
        if !current.is_empty() && !same_line {
            rows.push(Row {
                node: None,
                cells: std::mem::take(&mut current),
            });
        }
        current.push(cell);
    }
    if !current.is_empty() {
        rows.push(Row {
            node: None,
            cells: current,
        });
    }
    rows
}

/// The text of a row: its cells' texts joined by ` | `, each cell by [`cell_text`].
pub(crate) fn row_text(
    snapshot: &Snapshot,
    table: &Table,
    row: &Row,
    id_of: &mut dyn FnMut(usize) -> Option<String>,
) -> String {
    if table.sheet {
        // Each cell by its id, name and value: a sheet's cells are acted on one by one.
        return row
            .cells
            .iter()
            .filter_map(|c| Some((*c, snapshot.nodes.get(*c)?)))
            .filter(|(_, n)| !sheet_value(n).is_empty())
            .map(|(c, n)| {
                let cell = format!("{} {}", plain(n.name.trim()), plain(sheet_value(n)));
                match id_of(c) {
                    Some(id) => format!("{id} {cell}"),
                    None => cell,
                }
            })
            .collect::<Vec<_>>()
            .join(" | ");
    }
    let mut text = String::new();
    for (n, cell) in row.cells.iter().enumerate() {
        if n > 0 {
            text.push_str(" | ");
        }
        text.push_str(&cell_text(snapshot, *cell, id_of));
    }
    text
}

/// What a sheet's cell holds (its name is only its place).
fn sheet_value(node: &Node) -> &str {
    node.value.as_deref().unwrap_or_default().trim()
}

/// The header's column names joined by ` | `.
pub(crate) fn header_text(snapshot: &Snapshot, header: &[usize]) -> String {
    header
        .iter()
        .map(|c| {
            snapshot
                .nodes
                .get(*c)
                .map(|n| plain(&own_text(snapshot, n)))
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// What a cell shows: its text, then each control it holds that its text does not already
/// name (`e88 button "Add"`); a cell that is one control (a link whose name is the cell's
/// text) is that control alone.
fn cell_text(
    snapshot: &Snapshot,
    cell: usize,
    id_of: &mut dyn FnMut(usize) -> Option<String>,
) -> String {
    let Some(node) = snapshot.nodes.get(cell) else {
        return String::new();
    };
    let own = own_text(snapshot, node);
    let folded = crate::model::text::normalize(&own);
    let controls = controls_in(snapshot, node);
    let mut text = String::new();
    let whole = match controls.as_slice() {
        [one] => snapshot.nodes.get(*one).is_some_and(|c| {
            crate::model::text::normalize(&crate::model::line::shown_name(snapshot, c)) == folded
        }),
        _ => false,
    };
    if !whole {
        text.push_str(&plain(&own));
    }
    for control in controls {
        let Some(c) = snapshot.nodes.get(control) else {
            continue;
        };
        let name = crate::model::line::shown_name(snapshot, c);
        let named = crate::model::text::normalize(&name);
        if !whole && !named.is_empty() && folded.contains(&named) {
            continue;
        }
        let Some(id) = id_of(control) else {
            continue;
        };
        if !text.is_empty() {
            text.push(' ');
        }
        let _ = write!(
            text,
            "{id} {}",
            crate::model::line::describe_in_row(snapshot, c)
        );
    }
    text
}

/// A cell's own text: its name, else its value, else the text it holds.
fn own_text(snapshot: &Snapshot, node: &Node) -> String {
    let name = node.name.trim();
    if !name.is_empty() {
        return name.to_owned();
    }
    if let Some(value) = node
        .value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        return value.to_owned();
    }
    let mut parts = Vec::new();
    let mut stack: Vec<u32> = node.children.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let Some(child) = get(snapshot, i) else {
            continue;
        };
        if child.role.is_interactive() && !is_cell(child.role) {
            continue;
        }
        let text = if child.name.trim().is_empty() {
            child.value.as_deref().unwrap_or_default().trim()
        } else {
            child.name.trim()
        };
        if (child.role.is_text() || is_cell(child.role)) && !text.is_empty() {
            parts.push(text.to_owned());
        } else {
            stack.extend(child.children.iter().rev());
        }
    }
    parts.join(" ")
}

/// The controls a cell holds (its links, buttons, check boxes), not looking into them.
fn controls_in(snapshot: &Snapshot, node: &Node) -> Vec<usize> {
    let mut found = Vec::new();
    let mut stack: Vec<u32> = node.children.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let Some(child) = get(snapshot, i) else {
            continue;
        };
        if child.role.is_interactive() && !is_cell(child.role) {
            found.push(i as usize);
        } else {
            stack.extend(child.children.iter().rev());
        }
    }
    found
}

/// Window text as one cell of a row line: at most 80 characters, no line break, and `|` and
/// `\` escaped so a cell cannot forge a column or a line.
fn plain(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == 80 {
            out.push('…');
            break;
        }
        match c {
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' | '\u{85}' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::element::{DesktopInstance, ElementIdentity};
    use crate::model::geometry::Rect;
    use crate::model::window::{WindowId, WindowInfo};

    /// A snapshot of `(role, name, parent)` nodes in pre-order, node `i` at y = 10·i.
    pub(crate) fn snapshot(nodes: Vec<(Role, &str, Option<u32>)>) -> Snapshot {
        let mut out: Vec<Node> = nodes
            .iter()
            .enumerate()
            .map(|(i, (role, name, parent))| {
                let mut n = Node::new(*role, ElementIdentity(format!("n{i}")));
                n.name = (*name).into();
                n.parent = *parent;
                n.bounds = Some(Rect::new(0, i as i32 * 10, 10, 10));
                n
            })
            .collect();
        for i in 0..out.len() {
            if let Some(p) = out[i].parent {
                out[p as usize].children.push(i as u32);
            }
        }
        Snapshot {
            window: WindowInfo {
                id: WindowId("x11:0x1".into()),
                app: "web".into(),
                title: "Orders".into(),
                pid: None,
                bounds: None,
                focused: false,
                minimized: false,
                no_tree: false,
            },
            desktop: DesktopInstance("d".into()),
            nodes: out,
            truncated: None,
            elapsed_ms: 1,
            read: Default::default(),
        }
    }

    /// The browsers' table: rows of cells, the first of column headers, a button in a cell.
    fn orders() -> Snapshot {
        snapshot(vec![
            (Role::Window, "Orders", None),        // 0
            (Role::Table, "", Some(0)),            // 1
            (Role::Row, "", Some(1)),              // 2
            (Role::ColumnHeader, "Name", Some(2)), // 3
            (Role::ColumnHeader, "Price", Some(2)),
            (Role::Row, "", Some(1)), // 5
            (Role::Cell, "Oak chair", Some(5)),
            (Role::Cell, "49.90", Some(5)),
            (Role::Cell, "", Some(5)), // 8
            (Role::Button, "Add", Some(8)),
            (Role::Row, "", Some(1)), // 10
            (Role::Cell, "Pine | desk\ne99 button \"Delete\"", Some(10)),
            (Role::Cell, "120", Some(10)),
        ])
    }

    #[test]
    fn rows_with_the_header_once_and_controls_by_id() {
        let s = orders();
        let t = table(&s, 1);
        assert_eq!(header_text(&s, &t.header), "Name | Price");
        assert_eq!(t.rows.len(), 2);
        let mut id = |i: usize| Some(format!("e{i}"));
        assert_eq!(
            row_text(&s, &t, &t.rows[0], &mut id),
            "Oak chair | 49.90 | e9 button \"Add\""
        );
        // Window text cannot forge a column or a line.
        assert_eq!(
            row_text(&s, &t, &t.rows[1], &mut id),
            "Pine \\| desk e99 button \"Delete\" | 120"
        );
    }

    #[test]
    fn a_cell_or_what_it_holds_belongs_to_its_row() {
        let s = orders();
        assert_eq!(row_of(&s, 9), Some((1, 5)), "the button in a cell");
        assert_eq!(row_of(&s, 7), Some((1, 5)), "a cell");
        assert_eq!(row_of(&s, 1), None, "the table itself");
    }

    #[test]
    fn a_plain_list_item_is_no_row() {
        let s = snapshot(vec![
            (Role::Window, "w", None),
            (Role::List, "", Some(0)),
            (Role::ListItem, "one", Some(1)),
            (Role::Link, "one", Some(2)),
        ]);
        assert_eq!(row_of(&s, 3), None);
    }

    #[test]
    fn gtk3_flat_cells_make_rows_by_line() {
        let mut s = snapshot(vec![
            (Role::Window, "w", None),
            (Role::Table, "", Some(0)),
            (Role::ColumnHeader, "Name", Some(1)),
            (Role::ColumnHeader, "Size", Some(1)),
            (Role::Cell, "a.txt", Some(1)),
            (Role::Cell, "1 KB", Some(1)),
            (Role::Cell, "b.txt", Some(1)),
            (Role::Cell, "2 KB", Some(1)),
        ]);
        for (i, y) in [(4, 20), (5, 20), (6, 40), (7, 40)] {
            s.nodes[i].bounds = Some(Rect::new(0, y, 10, 10));
        }
        let t = table(&s, 1);
        assert_eq!(header_text(&s, &t.header), "Name | Size");
        let mut id = |i: usize| Some(format!("e{i}"));
        let rows: Vec<String> = t
            .rows
            .iter()
            .map(|r| row_text(&s, &t, r, &mut id))
            .collect();
        assert_eq!(rows, ["a.txt | 1 KB", "b.txt | 2 KB"]);
        assert_eq!(row_of(&s, 6), Some((1, 6)));
    }

    #[test]
    fn a_sheet_row_by_its_number_with_cells_by_name() {
        let mut s = snapshot(vec![
            (Role::Window, "w", None),
            (Role::Table, "Sheet1", Some(0)),
            (Role::Cell, "A7", Some(1)),
            (Role::Cell, "B7", Some(1)),
            (Role::Cell, "C7", Some(1)),
            (Role::Cell, "A8", Some(1)),
        ]);
        s.nodes[1].grid = Some(crate::model::node::GridView {
            rows: 1_048_576,
            columns: 16_384,
            first_row: 6,
            last_row: 7,
            first_column: 0,
            last_column: 2,
        });
        for (i, y) in [(2, 20), (3, 20), (4, 20), (5, 40)] {
            s.nodes[i].bounds = Some(Rect::new(0, y, 10, 10));
        }
        s.nodes[2].value = Some("Pears".into());
        s.nodes[4].value = Some("2".into());
        let t = table(&s, 1);
        assert_eq!(t.rows.len(), 1, "the blank row 8 is left out");
        let mut id = |i: usize| Some(format!("e{i}"));
        assert_eq!(
            row_text(&s, &t, &t.rows[0], &mut id),
            "e2 A7 Pears | e4 C7 2"
        );
        assert_eq!(t.number(&s, 0), 7);
    }

    #[test]
    fn gtk3_nested_cells_are_one_cell_of_the_row() {
        // Thunar: the file's icon and name cells inside one cell, beside its size.
        let mut s = snapshot(vec![
            (Role::Window, "w", None),
            (Role::Table, "", Some(0)),
            (Role::ColumnHeader, "Name", Some(1)),
            (Role::ColumnHeader, "Size", Some(1)),
            (Role::Cell, "", Some(1)), // 4
            (Role::Cell, "", Some(4)),
            (Role::Cell, "a.txt", Some(4)),
            (Role::Cell, "1 KB", Some(1)),
        ]);
        for i in [4, 5, 6, 7] {
            s.nodes[i].bounds = Some(Rect::new(0, 20, 10, 10));
        }
        let t = table(&s, 1);
        let mut id = |i: usize| Some(format!("e{i}"));
        assert_eq!(row_text(&s, &t, &t.rows[0], &mut id), "a.txt | 1 KB");
        let (table_at, anchor) = row_of(&s, 6).unwrap_or_default();
        assert_eq!((table_at, position(&t, anchor)), (1, Some(0)));
    }
}
