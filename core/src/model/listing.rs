//! What a query or a table read prints, once the outline's walk gave every listed element its
//! id: a query's matches (a match in a table cell as its whole row, under its table's header),
//! and a table's rows by range with the true total.
//!
//! Elements the walk did not list (below the fold, in a row it folded away) get ids numbered
//! above every id of the outline when they are printed, so the ids of what is on screen stay
//! those of the whole outline.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::element::Snapshot;
use crate::model::line::{self as outline, Ids, Outline, Place, TableRows};
use crate::model::node::{Node, State};
use crate::model::role::Role;
use crate::model::rows;

/// The outline being finished, and the ids given so far (snapshot index → id).
pub(crate) struct Listing<'a, 'k> {
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) place: Place,
    pub(crate) ids: &'a mut Ids<'k>,
    pub(crate) out: &'a mut Outline,
    pub(crate) given: &'a mut HashMap<usize, String>,
    /// The tree carries places: an element without one is not on screen (GTK 3's rows
    /// scrolled out of its tree view).
    pub(crate) has_bounds: bool,
}

/// Whether an element that is not on screen would be by scrolling: it lies in the document on
/// screen (or a table, list or scroll pane on screen), not in a closed menu, a hidden toolbar
/// or a background tab.
pub fn scrollable_to(snapshot: &Snapshot, node: &Node) -> bool {
    let mut at = node.parent;
    while let Some(i) = at {
        let Some(up) = snapshot.nodes.get(i as usize) else {
            return false;
        };
        let hidden = up.states.contains(State::Offscreen);
        match up.role {
            Role::Menu | Role::MenuBar | Role::Toolbar if hidden => return false,
            Role::Document => return !hidden,
            Role::Table | Role::Tree | Role::List | Role::ScrollPane if !hidden => return true,
            _ => {}
        }
        at = up.parent;
    }
    false
}

impl Listing<'_, '_> {
    /// The id of the element at `index`, given now if the walk did not list it.
    fn id(&mut self, index: usize) -> Option<String> {
        if let Some(id) = self.given.get(&index) {
            return Some(id.clone());
        }
        let node = self.snapshot.nodes.get(index)?;
        let id = self.ids.of(self.snapshot, node);
        let body = outline::body(node, &outline::shown_name(self.snapshot, node), self.place);
        self.out.ids.push((id.clone(), index));
        self.out.bodies.push(body);
        self.given.insert(index, id.clone());
        Some(id)
    }

    /// Prints a query's matches: each on its line with its named containers, a match in a
    /// table as its row (once), under its table's line.
    pub(crate) fn matches(&mut self, found: &[usize], limit: usize) {
        let mut tables: HashMap<usize, rows::Table> = HashMap::new();
        let mut printed_rows = std::collections::HashSet::new();
        let mut open_table = None;
        let mut printed = 0usize;
        for &index in found {
            if printed >= limit {
                break;
            }
            if let Some((t, anchor)) = rows::row_of(self.snapshot, index) {
                let table = tables
                    .entry(t)
                    .or_insert_with(|| rows::table(self.snapshot, t));
                if let Some(at) = rows::position(table, anchor) {
                    if printed_rows.insert((t, at)) {
                        if open_table != Some(t) {
                            self.table_line(t, table);
                            open_table = Some(t);
                        }
                        self.row_line(table, at);
                        printed += 1;
                    }
                    continue;
                }
            }
            open_table = None;
            let Some(node) = self.snapshot.nodes.get(index) else {
                continue;
            };
            let Some(id) = self.id(index) else {
                continue;
            };
            let body = outline::body(node, &outline::shown_name(self.snapshot, node), self.place);
            outline::line(&mut self.out.text, &id, &body, 1);
            outline::containers(&mut self.out.text, self.snapshot, node);
            printed += 1;
        }
    }

    /// Prints the rows `ask` names of its table, or says why there are none.
    pub(crate) fn table(&mut self, ask: &TableRows) {
        let found = self
            .snapshot
            .nodes
            .iter()
            .position(|n| n.identity == ask.element)
            .and_then(|i| {
                if rows::is_table(self.snapshot.nodes.get(i)?.role) {
                    Some(i)
                } else {
                    rows::row_of(self.snapshot, i).map(|(t, _)| t)
                }
            });
        let Some(t) = found else {
            let _ = writeln!(
                self.out.text,
                "… that element is no longer a table, list or tree here: observe the window again"
            );
            return;
        };
        let table = rows::table(self.snapshot, t);
        self.table_line(t, &table);
        if table.sheet {
            for at in 0..table.rows.len() {
                if (ask.first..=ask.last).contains(&table.number(self.snapshot, at)) {
                    self.row_line(&table, at);
                }
            }
            let _ = writeln!(
                self.out.text,
                "… a sheet is read as far as it is on screen: scroll, or go to a cell with the Name Box, to read other rows"
            );
            return;
        }
        let total = table.rows.len();
        let first = ask.first.max(1);
        let last = ask.last.min(total);
        for at in first.saturating_sub(1)..last {
            self.row_line(&table, at);
        }
        if total == 0 {
            let _ = writeln!(self.out.text, "… it holds no rows");
        } else if first > total {
            let _ = writeln!(
                self.out.text,
                "… it has {total} rows: ask for rows=\"1-{}\"",
                total.min(50)
            );
        } else if last < total {
            let next = last + 1;
            let _ = writeln!(
                self.out.text,
                "… rows {next}-{total} of {total} not shown: rows=\"{next}-{}\"",
                (next + 49).min(total)
            );
        }
    }

    /// `e45 table "Tier 1", 8 rows: target | notes`
    fn table_line(&mut self, t: usize, table: &rows::Table) {
        let id = self.id(t).unwrap_or_default();
        let role = self.snapshot.nodes.get(t).map(|n| n.role);
        let mut text = format!("{id} {}", role.map(|r| r.to_string()).unwrap_or_default());
        let name = rows::table_name(self.snapshot, t);
        if !name.is_empty() {
            let _ = write!(text, " {}", outline::quote(&name));
        }
        match (table.sheet, self.snapshot.nodes.get(t).and_then(|n| n.grid)) {
            (true, Some(g)) => {
                let _ = write!(
                    text,
                    ", sheet rows {}-{} on screen, {} of them not blank",
                    g.first_row + 1,
                    g.last_row + 1,
                    table.rows.len()
                );
            }
            _ => {
                let _ = write!(text, ", {} rows", table.rows.len());
            }
        }
        if !table.header.is_empty() {
            let _ = write!(
                text,
                ": {}",
                rows::header_text(self.snapshot, &table.header)
            );
        }
        let _ = writeln!(self.out.text, "{text}");
    }

    /// ` e49 row 12: Oak chair | 49.90 | e88 button "Add"`, `offscreen` when it is.
    fn row_line(&mut self, table: &rows::Table, at: usize) {
        let Some(row) = table.rows.get(at) else {
            return;
        };
        let anchor = row.node.or(row.cells.first().copied());
        let id = anchor.and_then(|a| self.id(a)).unwrap_or_default();
        let snapshot = self.snapshot;
        let text = rows::row_text(snapshot, table, row, &mut |i| self.id(i));
        // Not on screen: marked so, or without a place where the tree has places.
        let has_bounds = self.has_bounds;
        let offscreen = anchor.and_then(|a| snapshot.nodes.get(a)).is_some_and(|n| {
            n.states.contains(State::Offscreen)
                || has_bounds && n.bounds.is_none_or(|b| b.is_empty())
        });
        let _ = writeln!(
            self.out.text,
            " {id} row {}: {text}{}",
            table.number(snapshot, at),
            if offscreen { " offscreen" } else { "" }
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::element::{ElementIdentity, Snapshot};
    use crate::model::geometry::Rect;
    use crate::model::node::State;
    use crate::model::outline::{key, render, OutlineOptions, TableRows};
    use crate::model::role::Role;
    use crate::model::rows::tests::snapshot;

    /// A web page 100 px high: a heading, then a table whose last row lies below the fold, and
    /// a closed menu.
    fn page() -> Snapshot {
        let mut s = snapshot(vec![
            (Role::Window, "Shop", None),            // 0
            (Role::Document, "Shop", Some(0)),       // 1
            (Role::Heading, "Prices", Some(1)),      // 2
            (Role::Table, "", Some(1)),              // 3
            (Role::Row, "", Some(3)),                // 4
            (Role::ColumnHeader, "Name", Some(4)),   // 5
            (Role::ColumnHeader, "Price", Some(4)),  // 6
            (Role::Row, "", Some(3)),                // 7
            (Role::Cell, "Oak chair", Some(7)),      // 8
            (Role::Cell, "49.90", Some(7)),          // 9
            (Role::Row, "", Some(3)),                // 10
            (Role::Cell, "Pine desk", Some(10)),     // 11
            (Role::Cell, "", Some(10)),              // 12
            (Role::Link, "Details", Some(12)),       // 13
            (Role::Menu, "", Some(0)),               // 14
            (Role::MenuItem, "Pine wood", Some(14)), // 15
        ]);
        s.nodes[0].bounds = Some(Rect::new(0, 0, 100, 100));
        for i in [10, 11, 12, 13] {
            s.nodes[i].bounds = Some(Rect::new(0, 500, 10, 10));
            s.nodes[i].states.insert(State::Offscreen);
        }
        for i in [14, 15] {
            s.nodes[i].states.insert(State::Offscreen);
        }
        s
    }

    fn asked(s: &Snapshot, query: &str) -> crate::model::outline::Outline {
        render(
            s,
            &OutlineOptions {
                query: Some(query.into()),
                ..Default::default()
            },
        )
    }

    #[test]
    fn a_query_finds_below_the_fold_and_answers_a_cells_whole_row() {
        let s = page();
        let whole = render(&s, &OutlineOptions::default());
        let found = asked(&s, "pine");
        assert!(
            found
                .text
                .contains("table \"Prices\", 2 rows: Name | Price\n")
                && found
                    .text
                    .contains(" row 2: Pine desk | e7 link \"Details\" offscreen\n"),
            "{}",
            found.text
        );
        assert!(
            !found.text.contains("Pine wood"),
            "a closed menu's item: {}",
            found.text
        );
        // What is on screen keeps the whole outline's ids; the rest is numbered above them.
        assert_eq!(found.ids[..whole.ids.len()], whole.ids[..]);
        let highest = |o: &crate::model::outline::Outline| {
            o.ids
                .iter()
                .filter_map(|(id, _)| id[1..].parse::<usize>().ok())
                .max()
        };
        assert!(highest(&found) > highest(&whole));
    }

    #[test]
    fn a_table_is_read_by_range_with_its_true_total() {
        let s = page();
        let read = |first, last| {
            render(
                &s,
                &OutlineOptions {
                    table: Some(TableRows {
                        element: ElementIdentity("n9".into()),
                        first,
                        last,
                    }),
                    ..Default::default()
                },
            )
            .text
        };
        let one = read(1, 1);
        assert!(one.contains(" row 1: Oak chair | 49.90\n"), "{one}");
        assert!(
            one.contains("… rows 2-2 of 2 not shown: rows=\"2-2\""),
            "{one}"
        );
        assert!(!one.contains("Pine"), "{one}");
        let beyond = read(5, 9);
        assert!(beyond.contains("… it has 2 rows"), "{beyond}");
    }

    #[test]
    fn a_sheets_cell_is_known_by_its_name_across_observations() {
        let mut s = snapshot(vec![
            (Role::Window, "Calc", None),
            (Role::Table, "Sheet1", Some(0)),
            (Role::Cell, "B7", Some(1)),
        ]);
        s.nodes[1].grid = Some(crate::model::node::GridView {
            rows: 9,
            columns: 9,
            first_row: 0,
            last_row: 8,
            first_column: 0,
            last_column: 8,
        });
        let before = key(&s, &s.nodes[2]);
        s.nodes[2].identity = ElementIdentity("a new object".into());
        assert_eq!(key(&s, &s.nodes[2]), before);
        assert_eq!(before, "n1#B7");
        assert_eq!(key(&s, &s.nodes[1]), "n1", "anything else by its identity");
    }
}
