//! The cells of a large table that are on screen. A spreadsheet (LibreOffice Calc: 1,048,576 rows
//! by 16,384 columns, reported as 2^31 - 1 children) cannot be read child by child: reading its
//! first children gives row 1 and nothing a user sees below it. Instead the table's own hit test
//! finds the cells at its visible corners, and `Table.GetAccessibleAt` reads the rows and columns
//! between them, row by row, up to [`MAX_VISIBLE_CELLS`].

use cu_core::model::element::GridView;
use zbus::zvariant::OwnedObjectPath;

use super::{Atspi, ObjRef, ACCESSIBLE, COMPONENT, COORD_SCREEN};

/// `org.a11y.atspi.Table`.
pub(crate) const TABLE: &str = "org.a11y.atspi.Table";
/// Cells read from one table at most (a full-screen sheet shows about 50 × 24).
pub(crate) const MAX_VISIBLE_CELLS: u32 = 1500;

/// The visible cells of the table `obj` whose screen extents are `extents`, row by row, and what
/// part of the table they are; `None` when the table is small enough to read whole, or does not
/// say where its cells are.
pub(crate) async fn visible_cells(
    atspi: &Atspi,
    obj: &ObjRef,
    extents: (i32, i32, i32, i32),
    small: u64,
) -> Option<(Vec<ObjRef>, GridView)> {
    let count = |name: &'static str| async move {
        atspi
            .property(obj, TABLE, name)
            .await
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .and_then(|n| u32::try_from(n).ok())
    };
    let (rows, columns) = tokio::join!(count("NRows"), count("NColumns"));
    let (rows, columns) = (rows?, columns?);
    if u64::from(rows) * u64::from(columns) <= small {
        return None;
    }
    let (x, y, w, h) = extents;
    if w <= 4 || h <= 4 {
        return None;
    }
    let (first, last) = tokio::join!(
        cell_at(atspi, obj, x + 2, y + 2),
        cell_at(atspi, obj, x + w - 3, y + h - 3)
    );
    let grid = cell_range(rows, columns, first?, last?, MAX_VISIBLE_CELLS)?;
    let places: Vec<(u32, u32)> = (grid.first_row..=grid.last_row)
        .flat_map(|row| (grid.first_column..=grid.last_column).map(move |column| (row, column)))
        .collect();
    let mut cells = cells_at(atspi, obj, &places).await;
    // A busy app lets some of a thousand calls time out: those cells are asked once more (a
    // cell missing from the sheet is one a click by its name cannot find).
    let missed: Vec<(u32, u32)> = places
        .iter()
        .zip(&cells)
        .filter(|(_, cell)| matches!(cell, Err(Failed::Call)))
        .map(|(place, _)| *place)
        .collect();
    if !missed.is_empty() {
        tracing::debug!(missed = missed.len(), "table cells asked again");
        let again = cells_at(atspi, obj, &missed).await;
        let mut again = missed
            .iter()
            .zip(again)
            .collect::<std::collections::HashMap<_, _>>();
        for (place, cell) in places.iter().zip(cells.iter_mut()) {
            if let Some(retried) = again.remove(place) {
                *cell = retried;
            }
        }
    }
    Some((cells.into_iter().flatten().collect(), grid))
}

/// Why a cell was not read: its call failed (worth asking again), or there is none there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    Call,
    Empty,
}

/// The cells at `places` (row, column) of the table, each read by its own call, all at once.
async fn cells_at(
    atspi: &Atspi,
    obj: &ObjRef,
    places: &[(u32, u32)],
) -> Vec<std::result::Result<ObjRef, Failed>> {
    let calls = places.iter().map(|&(row, column)| async move {
        let (bus, path) = atspi
            .call::<_, (String, OwnedObjectPath)>(
                obj,
                TABLE,
                "GetAccessibleAt",
                &(row as i32, column as i32),
            )
            .await
            .map_err(|_| Failed::Call)?;
        Some(ObjRef { bus, path })
            .filter(|r| !r.is_null())
            .ok_or(Failed::Empty)
    });
    futures_util::future::join_all(calls).await
}

/// The (row, column) of the cell at screen point (x, y) of the table.
async fn cell_at(atspi: &Atspi, table: &ObjRef, x: i32, y: i32) -> Option<(u32, u32)> {
    let (bus, path): (String, OwnedObjectPath) = atspi
        .call(
            table,
            COMPONENT,
            "GetAccessibleAtPoint",
            &(x, y, COORD_SCREEN),
        )
        .await
        .ok()?;
    let cell = ObjRef { bus, path };
    if cell.is_null() {
        return None;
    }
    let index: i32 = atspi
        .call(&cell, ACCESSIBLE, "GetIndexInParent", &())
        .await
        .ok()?;
    let at = (index,);
    let (row, column) = tokio::join!(
        atspi.call::<_, i32>(table, TABLE, "GetRowAtIndex", &at),
        atspi.call::<_, i32>(table, TABLE, "GetColumnAtIndex", &at)
    );
    Some((
        u32::try_from(row.ok()?).ok()?,
        u32::try_from(column.ok()?).ok()?,
    ))
}

/// The rows and columns between two corner cells, within the table, with at most `max_cells`
/// cells: rows past the limit are left out (the columns on screen are kept).
fn cell_range(
    rows: u32,
    columns: u32,
    (r0, c0): (u32, u32),
    (r1, c1): (u32, u32),
    max_cells: u32,
) -> Option<GridView> {
    if rows == 0 || columns == 0 || r0 >= rows || c0 >= columns {
        return None;
    }
    let (last_row, last_column) = (r1.clamp(r0, rows - 1), c1.clamp(c0, columns - 1));
    let width = last_column - c0 + 1;
    let max_rows = (max_cells / width).max(1);
    Some(GridView {
        rows,
        columns,
        first_row: r0,
        last_row: last_row.min(r0 + max_rows - 1),
        first_column: c0,
        last_column: last_column.min(c0 + max_cells.max(1) - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_calc_read_row_1_and_then_two_billion_elements_not_read() {
        // A full-screen sheet shows A1..X50.
        let grid = cell_range(1_048_576, 16_384, (0, 0), (49, 23), MAX_VISIBLE_CELLS).unwrap();
        assert_eq!((grid.first_row, grid.last_row), (0, 49));
        assert_eq!((grid.first_column, grid.last_column), (0, 23));
        assert_eq!(grid.cells(), 1200);
    }

    #[test]
    fn rows_past_the_cell_limit_are_left_out_and_corners_stay_inside_the_table() {
        let grid = cell_range(1000, 40, (10, 0), (200, 39), 400).unwrap();
        assert_eq!(
            (grid.first_row, grid.last_row),
            (10, 19),
            "10 rows of 40 cells"
        );
        let grid = cell_range(5, 3, (0, 0), (9, 9), 400).unwrap();
        assert_eq!((grid.last_row, grid.last_column), (4, 2));
        assert!(cell_range(5, 3, (7, 0), (9, 9), 400).is_none());
    }
}
