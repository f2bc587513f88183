"""The documents against what they describe: README.md and docs/**/*.md are checked against the
binary's `--help`, the pinned tool list (tests/golden/tools_list.json), the configuration table
(core/src/config/settings.rs) and the repository itself. No desktop needed.

- README.md has at most 350 lines, and its two commands for a fresh machine name executable
  scripts; `.ci/run` runs the same test command with CI=true; the registration markers that
  scripts/package-test.sh reads are there.
- Every `mcp-computer-use …` command line (code blocks and inline code; env assignments, `npx -y`
  and paths such as ./target/release/mcp-computer-use allowed in front): the command exists and
  each of its flags is in that command's `--help` (top-level flags in the top-level `--help`);
  `call TOOL JSON` names a tool and its arguments, `act … JSON` valid steps. A flag quoted alone
  is one of the binary's or a named other program's.
- Every tool-like name: `gui_*`, a call `name(…)`, "the `name` tool", `tool word`, and the
  `{arg, …}` signature written beside a tool exist in the tool list, arguments in its
  inputSchema.
- Every configuration key (`section.key`) and `MCP_CU_*` variable exists in the code.
- Every `scripts/…`, `tests/…`, `docs/…` (and crate source) path exists; every relative link
  resolves, `file.md#anchor` to a heading with that GitHub slug; every `test_…` name quoted is a
  test that exists.
- Every page of docs/ opens with a title and an overview paragraph.

Each failure names the file, the line and the stale thing.
"""
import functools
import json
import os
import pathlib
import re
import shlex
import subprocess
import unicodedata

import pytest

from conftest import BIN, ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
PAGES = [README] + DOCS
# Links are also checked in ARCHITECTURE.md, which points into the README and docs/.
LINKED = PAGES + [ROOT / "ARCHITECTURE.md"]
GOLDEN = ROOT / "tests" / "golden" / "tools_list.json"
SETTINGS = ROOT / "core" / "src" / "config" / "settings.rs"
MAX_README_LINES = 350
BINARY = "mcp-computer-use"

# Calls written like a tool's that are not tools: a web page's own JavaScript `confirm()`.
NOT_TOOL_CALLS = {"confirm"}
# Flags of other programs that the documents quote alone, with whose they are.
FOREIGN_FLAGS = {
    "--pull": "podman build",
    "--features": "cargo",
    "--no-default-features": "cargo",
    "--force-renderer-accessibility": "Chromium and Electron apps",
    "--renderer-cmd-prefix": "Chromium (an argument gui_open refuses)",
    "--headless": "gnome-shell and mutter",
    "--wayland": "gnome-shell and mutter",
    "--no-x11": "gnome-shell and mutter",
    "--virtual-monitor": "gnome-shell",
}
# Words that may stand before the binary in a command line.
WRAPPERS = {"npx", "-y", "--yes", "sudo", "exec", "time", "env", "nohup"}
SEPARATORS = {"&&", "||", ";", "--"}
SHELL_LANGS = {"", "sh", "bash", "shell", "console"}
# Paths the documents name from the repository root.
PATH_RE = re.compile(
    r"(?<![\w./~-])((?:scripts|tests|docs|packaging|fuzz|\.ci|\.github)/[\w./-]*[\w-]/?"
    r"|(?:core|backends|cli|tools|mcp|llm|remote|webui)/[\w./-]*(?:\.\w+|/))"
)


def rel(path):
    return path.relative_to(ROOT)


# ---------------------------------------------------------------------------------------------
# Reading Markdown: fenced blocks, prose (with fences blanked, so offsets keep their lines),
# inline code spans, headings.


class Page:
    def __init__(self, path):
        self.path = path
        self.name = str(rel(path))
        self.text = path.read_text()
        self.lines = self.text.split("\n")
        self.blocks = []  # (lang, first line number, [lines])
        prose = []
        fence = None
        for number, line in enumerate(self.lines, 1):
            m = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", line)
            if fence is None and m:
                fence = (m.group(1), m.group(2).lower(), number + 1, [])
                prose.append("")
            elif fence is not None and line.strip().startswith(fence[0]):
                self.blocks.append((fence[1], fence[2], fence[3]))
                fence = None
                prose.append("")
            elif fence is not None:
                fence[3].append(line)
                prose.append("")
            else:
                prose.append(line)
        assert fence is None, f"{self.name}:{fence[2] - 1}: a code block is never closed"
        # HTML comments are not text (the registration markers are checked on their own).
        self.prose = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                            "\n".join(prose), flags=re.S)

    def line_of(self, offset):
        return self.prose.count("\n", 0, offset) + 1

    @functools.cached_property
    def spans(self):
        """Inline code spans: (line, content), a span broken over lines joined with spaces."""
        out = []
        pattern = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
        for m in pattern.finditer(self.prose):
            out.append((self.line_of(m.start()), re.sub(r"\s*\n\s*", " ", m.group(2)).strip(),
                        m.start(), m.end()))
        return out

    @functools.cached_property
    def prose_without_code(self):
        text = list(self.prose)
        for _, _, start, end in self.spans:
            for i in range(start, end):
                if text[i] != "\n":
                    text[i] = " "
        return "".join(text)

    @functools.cached_property
    def slugs(self):
        seen, out = {}, set()
        for line in self.prose.split("\n"):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
        return out

    def shell_lines(self):
        """Command lines of the shell code blocks, continuation lines joined."""
        for lang, first, lines in self.blocks:
            if lang not in SHELL_LANGS:
                continue
            held, start = "", None
            for i, line in enumerate(lines):
                if start is None:
                    start = first + i
                if line.rstrip().endswith("\\"):
                    held += line.rstrip()[:-1] + " "
                    continue
                yield start, held + line
                held, start = "", None


def github_slug(heading):
    """The anchor GitHub gives a heading: its text as shown, lower case, punctuation dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = text.lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def page(path):
    return Page(path)


def report(problems, what):
    assert not problems, f"{len(problems)} {what}:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# What the documents are checked against.


@functools.lru_cache(maxsize=None)
def tools():
    return {t["name"]: t for t in json.loads(GOLDEN.read_text())}


def schema_words(schema):
    """The names a tool's schema knows: its properties and every enum or const value in it."""
    words = set(schema.get("properties", {}))

    def walk(node):
        if isinstance(node, dict):
            for v in node.get("enum", []):
                if isinstance(v, str):
                    words.add(v)
            if isinstance(node.get("const"), str):
                words.add(node["const"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    return words


@functools.lru_cache(maxsize=None)
def help_text(*command):
    if not os.path.exists(BIN):
        pytest.fail(f"no binary at {BIN}: build it, or point MCP_CU_BIN at one")
    out = subprocess.run([BIN, *command, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, f"{BIN} {' '.join(command)} --help: {out.stderr}"
    return out.stdout


@functools.lru_cache(maxsize=None)
def subcommands():
    text = help_text()
    section = text.split("Commands:", 1)[1].split("Options:", 1)[0]
    return {m.group(1) for m in re.finditer(r"^  (\S+)\s", section, re.M)} - {"help"}


@functools.lru_cache(maxsize=None)
def flags(command=None):
    """The long and short options a command's --help lists (only option lines, not prose)."""
    text = help_text(*([command] if command else []))
    out = {"--help", "-h"}
    for m in re.finditer(r"^\s+(?:(-\w), )?(--[\w-]+)", text, re.M):
        out.add(m.group(2))
        if m.group(1):
            out.add(m.group(1))
    return out


@functools.lru_cache(maxsize=None)
def every_flag():
    out = set(flags())
    for sub in subcommands():
        out |= flags(sub)
    return out


@functools.lru_cache(maxsize=None)
def settings():
    keys = set(re.findall(r'key: "([\w.]+)"', SETTINGS.read_text()))
    assert keys, f"no settings found in {rel(SETTINGS)}"
    return keys


SOURCE_FOLDERS = ["core", "backends", "cli", "tools", "mcp", "llm", "remote", "webui", "scripts",
                  "tests", "packaging", ".ci", "fuzz"]


def source_files(suffixes):
    """The repository's own files under SOURCE_FOLDERS, never a build or dependency tree."""
    for folder in SOURCE_FOLDERS:
        for top, dirs, files in os.walk(ROOT / folder):
            dirs[:] = [d for d in dirs if d not in {"target", "node_modules", ".git", "corpus"}]
            for name in files:
                path = pathlib.Path(top) / name
                if path.suffix in suffixes:
                    yield path


@functools.lru_cache(maxsize=None)
def source_text():
    """Every source file outside the documents, for names the code must carry."""
    chunks = [path.read_text(errors="replace")
              for path in source_files({".rs", ".sh", ".py", ".toml", ".js", ".mjs", ".json", ""})
              if path.stat().st_size < 2_000_000]
    chunks += [path.read_text() for path in ROOT.glob("*.toml")]
    return "\n".join(chunks)


@functools.lru_cache(maxsize=None)
def defined_tests():
    names = set()
    for path in source_files({".py", ".rs"}):
        names |= set(re.findall(r"(?:def|fn)\s+(\w+)\s*[(<]", path.read_text(errors="replace")))
    return names


# ---------------------------------------------------------------------------------------------
# Command lines.


def strip_comment(line):
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def split_words(line):
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def is_binary(word):
    return word == BINARY or word.endswith("/" + BINARY) or word.endswith("/" + BINARY + ".exe")


def invocations(line):
    """The argument lists of every invocation of the binary in a command line."""
    words = split_words(strip_comment(line))
    at_start, in_substitution, i, found = True, False, 0, []
    while i < len(words):
        word = words[i]
        if word.startswith("$("):
            word, at_start, in_substitution = word[2:], True, True
        substituted = re.match(r"^[A-Za-z_][A-Za-z0-9_]*=\$\((.*)$", word) if at_start else None
        if substituted:  # VAR=$(command …): the command inside is read like any other
            word, in_substitution = substituted.group(1), True
            if not word:
                i += 1
                continue
        elif at_start and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            i += 1
            continue
        if at_start and word in WRAPPERS:
            i += 1
            continue
        if at_start and is_binary(word):
            args, depth = [], 0
            i += 1
            while i < len(words):
                w = words[i]
                if w in SEPARATORS or (w == "|" and depth == 0) or w.startswith((">", "<", "2>")):
                    break
                if in_substitution and w.endswith(")"):
                    if w[:-1]:
                        args.append(w[:-1])
                    i += 1
                    break
                depth += w.count("[") - w.count("]")
                args.append(w)
                i += 1
            found.append(args)
            at_start = in_substitution = False
            continue
        if in_substitution and word.endswith(")"):
            # The substitution ends; after VAR=$(…) the next word is a command again.
            at_start, in_substitution = True, False
        else:
            at_start = word in SEPARATORS or word == "|"
        i += 1
    return found


def check_invocation(args):
    """The problems with one invocation's arguments, as sentences."""
    problems = []
    # Optional parts are written in [brackets] and alternatives with |: read the words inside,
    # and keep each word as written for the JSON arguments.
    pairs = [(a, a.strip("[]|,")) for a in args]
    pairs = [(a, b) for a, b in pairs if b]
    raw = [a for a, _ in pairs]
    bare = [b for _, b in pairs]
    if not bare:
        return problems
    command = None
    if re.match(r"^[A-Z][A-Z_]*$", bare[0]):
        # A placeholder such as COMMAND: only what every command takes (--help).
        common = set.intersection(*(flags(sub) for sub in subcommands()))
        return [f"flag `{w}` is not taken by every command" for w in bare[1:]
                if w.startswith("-") and w not in common]
    if not bare[0].startswith("-"):
        command = bare[0]
        if command not in subcommands():
            return [f"`{command}` is not a command of {BINARY} (its --help lists "
                    f"{', '.join(sorted(subcommands()))})"]
    known = flags(command)
    for word in bare[1:] if command else bare:
        if word == "--args" and command == "open":
            break  # everything after --args is the program's
        m = re.match(r"^(--[A-Za-z][\w-]*|-[A-Za-z])(?:=.*)?$", word)
        if m and m.group(1) not in known:
            where = f"`{BINARY} {command} --help`" if command else f"`{BINARY} --help`"
            problems.append(f"flag `{m.group(1)}` is not in {where}")
    if command == "call" and len(bare) > 1 and re.match(r"^[a-z][a-z0-9_]*$", bare[1]):
        tool = bare[1]
        if tool not in tools():
            problems.append(f"`call {tool}`: no tool `{tool}` in {rel(GOLDEN)}")
        elif len(raw) > 2 and raw[2].startswith("{"):
            try:
                arguments = json.loads(raw[2])
            except ValueError:
                arguments = {}
            props = tools()[tool]["inputSchema"].get("properties", {})
            for key in arguments:
                if key not in props:
                    problems.append(f"`call {tool}`: `{key}` is not an argument of {tool}")
    if command == "act" and len(raw) > 3 and raw[3].startswith("[{"):
        try:
            steps = json.loads(raw[3])
        except ValueError:
            steps = []
        # One schema for every step; its description says each type's fields:
        # "click (button, count, element_id, …): …  drag (…, x (Start: window-relative x), …): …".
        item = tools()["gui_action"]["inputSchema"]["properties"]["actions"]["items"]
        fields = {kind: step_fields(item["description"], kind) | {"type"}
                  for kind in item["properties"]["type"]["enum"]}
        for step in steps:
            kind = step.get("type")
            if kind not in fields:
                problems.append(f"`act`: step type `{kind}` does not exist")
                continue
            for key in step:
                if key not in fields[kind]:
                    problems.append(f"`act`: `{key}` is not a field of a gui_action `{kind}` step")
    return problems


def command_lines(p):
    for number, line in p.shell_lines():
        yield number, line
    for number, content, _, _ in p.spans:
        yield number, content


def step_fields(description, kind):
    """The fields `description` lists for step type `kind` ("kind (a, b* (meant so), c): …")."""
    start = description.index(f" {kind} (") + len(kind) + 3
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(description[end], 0)
        end += 1
    inside, names, depth, word = description[start:end - 1], set(), 0, ""
    for ch in inside + ",":
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            names.add(word.strip().split(" ")[0].rstrip("*"))
            word = ""
        elif depth == 0:
            word += ch
    return names


def test_every_command_line_runs_a_command_with_flags_its_help_lists():
    problems, seen = [], 0
    for path in PAGES:
        p = page(path)
        for number, line in command_lines(p):
            for args in invocations(line):
                seen += 1
                for problem in check_invocation(args):
                    problems.append(f"{p.name}:{number}: {problem}: {line.strip()}")
    assert seen > 20, f"only {seen} command lines found: is the parser still reading the documents?"
    report(problems, "stale command lines")


def test_every_flag_quoted_alone_is_the_binarys_or_a_named_programs():
    problems = []
    for path in PAGES:
        p = page(path)
        for number, content, _, _ in p.spans:
            words = split_words(content)
            if not words:
                continue
            if words[0].startswith("--"):
                known, where = every_flag(), f"any `{BINARY} … --help`"
            elif words[0] in subcommands() and any(w.startswith("--") for w in words):
                known, where = flags(words[0]), f"`{BINARY} {words[0]} --help`"
            else:
                continue
            for flag in re.findall(r"(?<![\w-])(--[A-Za-z][\w-]*)", content):
                if flag not in known and flag not in FOREIGN_FLAGS:
                    problems.append(f"{p.name}:{number}: flag `{flag}` is not in {where}: `{content}`")
    report(problems, "stale flags")


# ---------------------------------------------------------------------------------------------
# Tools and their arguments.


def split_arguments(text):
    """Top-level comma-separated pieces of a call's or a signature's text."""
    pieces, depth, quote, current = [], 0, None, ""
    for c in text:
        if quote:
            current += c
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            pieces.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        pieces.append(current.strip())
    return pieces


def balanced_call(text, start):
    """The text between a call's parentheses, the opening one at `start`; None if unbalanced."""
    depth, quote = 0, None
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return None


def check_call(name, inside):
    if name in NOT_TOOL_CALLS:
        return []
    if name not in tools():
        return [f"`{name}(…)` is not a tool in {rel(GOLDEN)}"]
    props = tools()[name]["inputSchema"].get("properties", {})
    problems = []
    for piece in split_arguments(inside):
        m = re.match(r"^([a-z_][a-z0-9_]*)\s*(?:=|$)", piece)
        if m and m.group(1) not in props:
            problems.append(f"`{m.group(1)}` is not an argument of {name} "
                            f"(it takes {', '.join(sorted(props))})")
    return problems


def check_signature(name, inside):
    """`{window_id, condition: {…}, state_id?}` written beside a tool: its top-level keys."""
    props = tools()[name]["inputSchema"].get("properties", {})
    problems = []
    for piece in split_arguments(inside):
        m = re.match(r"^([a-z_][a-z0-9_]*)\??\s*(?::|$)", piece)
        if m and m.group(1) not in props:
            problems.append(f"`{m.group(1)}` is not an argument of {name}")
    return problems


def test_every_tool_name_and_argument_is_in_the_tool_list():
    problems = []
    for path in PAGES:
        p = page(path)
        spans = p.spans
        for k, (number, content, start, end) in enumerate(spans):
            where = f"{p.name}:{number}"
            call = re.match(r"^([a-z][a-z0-9_]*)\(", content)
            if call:
                inside = balanced_call(content, call.end() - 1)
                for problem in check_call(call.group(1), inside or ""):
                    problems.append(f"{where}: {problem}: `{content}`")
                continue
            for name in re.findall(r"(?<![\w.])(gui_[a-z0-9_]+)", content):
                if name not in tools():
                    problems.append(f"{where}: `{name}` is not a tool in {rel(GOLDEN)}: `{content}`")
            words = content.split()
            if len(words) == 2 and words[0] in tools() and re.match(r"^[a-z_]+$", words[1]):
                if words[1] not in schema_words(tools()[words[0]]["inputSchema"]):
                    problems.append(f"{where}: `{words[1]}` is neither an argument nor a value "
                                    f"of {words[0]}: `{content}`")
            if content in tools() and k + 1 < len(spans):
                nxt = spans[k + 1]
                between = p.prose[end:nxt[2]]
                if re.fullmatch(r"[\s*]*", between) and nxt[1].startswith("{") and nxt[1].endswith("}"):
                    for problem in check_signature(content, nxt[1][1:-1]):
                        problems.append(f"{p.name}:{nxt[0]}: {problem}: `{nxt[1]}`")
        for m in re.finditer(r"`([a-z][a-z0-9_]*)`\s+tool\b|\btool\s+`([a-z][a-z0-9_]*)`", p.prose):
            name = m.group(1) or m.group(2)
            if name not in tools():
                problems.append(f"{p.name}:{p.line_of(m.start())}: `{name}` is called a tool, "
                                f"but {rel(GOLDEN)} has no such tool")
        # Calls written in plain code blocks (recipes: click(app, "Save As…") → …).
        for lang, first, lines in p.blocks:
            if lang not in {"", "text"}:
                continue
            for i, line in enumerate(lines):
                for m in re.finditer(r"(?<![\w.])([a-z][a-z0-9_]*)\(", line):
                    inside = balanced_call(line, m.end() - 1)
                    if inside is None:
                        continue
                    for problem in check_call(m.group(1), inside):
                        problems.append(f"{p.name}:{first + i}: {problem}: {line.strip()}")
    report(problems, "stale tool names or arguments")


# ---------------------------------------------------------------------------------------------
# Configuration keys and variables.


def test_every_configuration_key_and_variable_exists():
    sections = {key.split(".")[0] for key in settings()}
    pattern = re.compile(r"^(%s)\.([a-z0-9_]+)(?:\s*=.*)?$" % "|".join(sorted(sections)))
    source = source_text()
    problems = []
    for path in PAGES:
        p = page(path)
        for number, content, _, _ in p.spans:
            m = pattern.match(content)
            if m and f"{m.group(1)}.{m.group(2)}" not in settings():
                problems.append(f"{p.name}:{number}: configuration key `{m.group(1)}.{m.group(2)}` "
                                f"is not in {rel(SETTINGS)}")
            m = re.match(r"^\[([a-z_]+)\]$", content)
            # [machines.NAME] and [fleet] are tables of their own (core/src/config/machines.rs, fleet.rs).
            if m and m.group(1) not in sections | {"machines", "fleet"}:
                problems.append(f"{p.name}:{number}: configuration section `[{m.group(1)}]` "
                                f"is not in {rel(SETTINGS)}")
        for number, line in enumerate(p.lines, 1):
            for var in re.findall(r"\b(MCP_CU_[A-Z0-9_]*[A-Z0-9])\b", line):
                if var not in source:
                    problems.append(f"{p.name}:{number}: `{var}` appears in no source file")
    report(problems, "stale configuration keys or variables")


# ---------------------------------------------------------------------------------------------
# Paths, links, test names.


def test_every_path_named_exists():
    problems = []
    for path in PAGES:
        p = page(path)
        texts = [(p.line_of(m.start()), m.group(0)) for m in re.finditer(r"[^\n]+", p.prose)]
        for lang, first, lines in p.blocks:
            if lang != "json":  # JSON examples quote window text, not this repository
                texts += [(first + i, line) for i, line in enumerate(lines)]
        for number, text in texts:
            for m in PATH_RE.finditer(text):
                named = m.group(1)
                if not (ROOT / named).exists():
                    problems.append(f"{p.name}:{number}: `{named}` does not exist in the repository")
    report(problems, "paths that do not exist")


def test_every_relative_link_resolves():
    problems = []
    link = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
    for path in LINKED:
        p = page(path)
        for m in link.finditer(p.prose_without_code):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            where = f"{p.name}:{p.line_of(m.start())}"
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                problems.append(f"{where}: link to `{target}`: {file_part} does not exist")
                continue
            if anchor and linked.suffix == ".md":
                if anchor not in page(linked).slugs:
                    problems.append(f"{where}: link to `{target}`: {rel(linked)} has no heading "
                                    f"with the anchor #{anchor}")
    report(problems, "broken links")


def test_every_test_named_exists():
    problems = []
    for path in PAGES:
        p = page(path)
        for number, content, _, _ in p.spans:
            for name in re.findall(r"(?:^|::)(test_\w+|\.\.\.(_\w+))$", content):
                whole, tail = name
                if tail:
                    ok = any(n.endswith(tail) for n in defined_tests())
                else:
                    ok = whole in defined_tests()
                if not ok:
                    problems.append(f"{p.name}:{number}: no test named `{whole}` in tests/ or the "
                                    f"Rust sources")
    report(problems, "tests that do not exist")


# ---------------------------------------------------------------------------------------------
# The README's promises.


def test_the_readme_fits_in_350_lines():
    count = len(README.read_text().splitlines())
    assert count <= MAX_README_LINES, (
        f"README.md: {count} lines, more than {MAX_README_LINES}: move the details to docs/")


def marked_command(marker):
    lines = README.read_text().split("\n")
    for number, line in enumerate(lines, 1):
        if line.strip() == f"<!-- {marker} -->":
            body = []
            assert lines[number].strip().startswith("```"), (
                f"README.md:{number}: `<!-- {marker} -->` must stand right above a code block")
            for following in lines[number + 1:]:
                if following.strip().startswith("```"):
                    break
                if following.strip():
                    body.append(following.strip())
            assert len(body) == 1, f"README.md:{number}: the {marker} block holds one command, not {body}"
            return number, body[0]
    pytest.fail(f"README.md: no `<!-- {marker} -->` marker above the {marker}")


def script_of(command, where):
    words = split_words(command)
    while words and (re.match(r"^[A-Za-z_]\w*=", words[0]) or words[0] in {"bash", "sh"}):
        words.pop(0)
    assert words, f"{where}: an empty command"
    script = ROOT / words[0]
    assert script.is_file(), f"{where}: `{words[0]}` does not exist"
    assert os.access(script, os.X_OK), f"{where}: `{words[0]}` is not executable"
    return words


@pytest.mark.parametrize("marker", ["main-command", "test-command"])
def test_the_two_commands_for_a_fresh_machine_name_executable_scripts(marker):
    number, command = marked_command(marker)
    words = script_of(command, f"README.md:{number}")
    # The scripts a command runs by path must exist too (try-it.sh runs install-deps.sh…).
    body = (ROOT / words[0]).read_text()
    for named in re.findall(r"(?<![\w/.])(scripts/[\w./-]+\.(?:sh|py))", body):
        assert (ROOT / named).is_file(), f"{words[0]} runs `{named}`, which does not exist"


def test_ci_runs_the_readmes_test_command():
    number, command = marked_command("test-command")
    readme_words = split_words(command)
    ci = ROOT / ".ci" / "run"
    assert os.access(ci, os.X_OK), ".ci/run is not executable"
    runs = []
    for line_number, line in enumerate(ci.read_text().split("\n"), 1):
        words = split_words(strip_comment(line))
        while words and words[0] in {"bash", "sh", "exec"}:
            words.pop(0)
        if words and words[0].startswith("scripts/"):
            runs.append((line_number, words))
    assert runs, ".ci/run runs no script of scripts/"
    assert any(words == readme_words for _, words in runs), (
        f"README.md:{number}: the test command `{command}` is not what .ci/run runs: "
        + "; ".join(f".ci/run:{n}: {' '.join(w)}" for n, w in runs))
    assert re.search(r"^\s*export CI=true\s*$", ci.read_text(), re.M), (
        ".ci/run does not set CI=true, which the README says it does")


def test_the_registration_markers_package_test_reads_are_there():
    # scripts/package-test.sh takes these from README.md and runs them against the real clients.
    text = README.read_text()
    claude = re.search(r"<!-- claude-code-line -->`(claude mcp add [^`]*)`", text)
    assert claude, "README.md: no `<!-- claude-code-line -->` right before a `claude mcp add …` line"
    assert invocations(claude.group(1)), f"README.md: the Claude Code line runs no {BINARY}"
    codex = re.search(r"<!-- codex-toml -->\s*\n\s*```toml\n(.*?)```", text, re.S)
    assert codex, "README.md: no `<!-- codex-toml -->` right above a toml block"
    assert re.search(r"^\s*\[mcp_servers\.mcp-computer-use\]", codex.group(1), re.M), (
        "README.md: the Codex block has no [mcp_servers.mcp-computer-use] table")


def test_every_page_of_docs_opens_with_a_title_and_an_overview():
    problems = []
    for path in DOCS:
        lines = path.read_text().split("\n")
        if not lines[0].startswith("# "):
            problems.append(f"{rel(path)}:1: the page does not open with a `# ` title")
            continue
        rest = [line for line in lines[1:] if line.strip()]
        first = rest[0] if rest else ""
        if not first or first.lstrip().startswith(("#", "|", "```", "- ", "* ", "1.", "<!--")):
            problems.append(f"{rel(path)}:2: the title is not followed by an overview paragraph")
    report(problems, "pages without an overview")
