"""Long tables as a person reads them (issue 40), on markup and apps we did not write: the Rust
book's platform-support page (`tests/fixtures/rust-platform-support.html`, from the rustup
toolchain's docs, MIT/Apache-2.0) in Firefox and Chromium, and Thunar's list view (GTK 3).

A query for one target among 324 answers its whole row (its notes beside it) though the row is
below the fold, and acting on the row's link by id works; a table is read by range with its
true total. The expected rows are read independently from the HTML with Python's parser, and
Thunar's sizes from the files on disk."""
import html.parser
import pathlib
import re

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, call, eventually, observe, poll, window_of

pytestmark = pytest.mark.anyio

PAGE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "rust-platform-support.html"
TARGET = "riscv64gc-unknown-linux-gnu"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Tables(html.parser.HTMLParser):
    """Every table of the page as rows of cell texts, the header row apart."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.heading, self.last_heading = [], None, None, ""

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "h4"):
            self.heading = ""
        elif tag == "table":
            self.tables.append({"header": [], "rows": [], "heading": self.last_heading})
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell, self.head = "", tag == "th"

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3", "h4") and self.heading is not None:
            self.last_heading, self.heading = " ".join(self.heading.split()), None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "tr":
            table = self.tables[-1]
            if self.head and not table["header"] and not table["rows"]:
                table["header"] = self.row
            else:
                table["rows"].append(self.row)

    def handle_data(self, data):
        if self.heading is not None:
            self.heading += data
        if self.cell is not None:
            self.cell += data


def tables():
    parser = Tables()
    parser.feed(PAGE.read_text())
    return parser.tables


@pytest.mark.parametrize("browser", ["firefox", "chromium"])
async def test_a_query_answers_a_rows_cells_below_the_fold(apps, server_env, browser):
    table = next(t for t in tables() if any(r and r[0] == TARGET for r in t["rows"]))
    number = next(i for i, r in enumerate(table["rows"], 1) if r[0] == TARGET)
    notes = next(r[1] for r in table["rows"] if r[0] == TARGET)
    pid = apps.launch(f"{browser}-page:{PAGE.name}")
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        wid = (await window_of(client, pid, timeout=60))["id"]

        # The table is named by the heading above it, as a person reads the page.
        line = f'table "{table["heading"]}", {len(table["rows"])} rows: {" | ".join(table["header"])}'

        async def found():
            # Until the page is on screen: "no document on screen".
            err, state = await call(client, "gui_state", {"window_id": wid, "page": True, "query": TARGET})
            return not err and f"row {number}:" in state["outline"] and line in state["outline"] and state
        state = await poll(found, f"the row of {TARGET} under {line}", timeout=30, every=0.5)
        outline = state["outline"]
        row = next(l for l in outline.splitlines() if f"row {number}:" in l)
        assert notes in row and row.endswith(" offscreen"), row
        found_link = re.search(rf'(e\d+) link "{TARGET}"', row)
        assert found_link, outline
        link = found_link.group(1)
        assert len(outline) < 700, f"one row, not the page:\n{outline}"

        # The table by range: the true total, the next range named.
        table_id = re.search(r"^(e\d+) table", outline, re.M).group(1)
        err, read = await call(client, "gui_state", {"window_id": wid, "page": True, "table": table_id,
                                                      "state_id": state["state_id"], "rows": "2-3"})
        assert not err, read
        lines = [l for l in read["outline"].splitlines() if re.match(r" e\d+ row \d+: ", l)]
        assert [re.sub(r"e\d+ \w+ ", "", l.split(": ", 1)[1]).replace('"', "").split(" | ")[0]
                for l in lines] == [r[0] for r in table["rows"][1:3]], read["outline"]
        assert f'… rows 4-{len(table["rows"])} of {len(table["rows"])} not shown' in read["outline"], read

        # The row's link acts by its id (the link's page is not in the fixture: the browser
        # leaves this page, which the window's title says).
        err, res = await call(client, "gui_action", {"window_id": wid, "state_id": state["state_id"],
                                                     "actions": [{"type": "click", "element_id": link}]})
        assert not err, res

        async def went():
            err, listing = await call(client, "gui_list", {})
            return any("Platform Support" not in w["title"] for w in listing["windows"] if w["id"] == wid)
        await poll(went, "the browser on the target's page", timeout=20, every=0.3)


async def test_thunar_list_view_rows_by_query_and_range(apps, server_env, tmp_path, monkeypatch):
    folder = tmp_path / "files"
    folder.mkdir()
    for i in range(1, 61):
        (folder / f"file-{i:02}.txt").write_bytes(b"\0" * (i * 137))
    monkeypatch.setenv("THUNAR_DIR", str(folder))
    async with Client(StdioServerParameters(command=BIN, args=[], env=server_env),
                      read_timeout_seconds=60) as client:
        pid = apps.launch("thunar")
        w = await window_of(client, pid, timeout=30)
        err, res = await call(client, "click", {"app": w["id"], "steps": ["View", "List View"]})
        assert not err, res
        await eventually(client, w["id"], lambda o: 'cell "file-01.txt"' in o, "the list view", timeout=10)
        state = await observe(client, w["id"], query="file-47")
        # 47 × 137 bytes, as Thunar rounds it (with a no-break space).
        size = rf"{47 * 137 / 1024:.1f}\sKiB"
        assert re.search(r"^e\d+ table, 60 rows: Name \| Size \| Type \| Date Modified$", state["outline"], re.M), state
        assert re.search(rf"^ e\d+ row 47: file-47\.txt \| {size} \| ", state["outline"], re.M), state
        table_id = re.search(r"^(e\d+) table", state["outline"], re.M).group(1)
        err, read = await call(client, "gui_state", {"window_id": w["id"], "table": table_id,
                                                      "state_id": state["state_id"], "rows": "58-"})
        assert not err, read
        names = re.findall(r"row \d+: (file-\d+\.txt) ", read["outline"])
        assert names == sorted(p.name for p in folder.iterdir())[57:], read["outline"]
