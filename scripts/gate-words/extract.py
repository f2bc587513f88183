#!/usr/bin/env python3
"""Build the safety gate's translated blocklist from the toolkits' own translation catalogs.

Reads the catalogs installed on this (Debian 12) machine, finds the messages whose English source
text is one of the gate's verbs ("Delete", "Send", "Pay", ...), and writes

  core/src/policy/safety_words.rs   the generated Rust table (language, English verb, translation, count)
  scripts/gate-words/report.txt   what was kept, what was dropped and why, and the gaps

Catalogs read (whatever of these is installed):
  * gettext .mo under /usr/share/locale/<lang>/LC_MESSAGES/ (GTK, GLib, KDE Frameworks, Xfce,
    GNOME apps, ...) and LibreOffice's /usr/lib/libreoffice/program/resource/<lang>/LC_MESSAGES/
  * Qt .qm: /usr/share/qt5/translations, /usr/share/qt6/translations, and the KDE *_qt.qm files
    under /usr/share/locale
  * Chromium's locale packs /usr/lib/chromium/locales/<lang>.pak (matched to en-US.pak by id)
  * Firefox ESR's language packs (.xpi), matched to the en-US strings in omni.ja by file and id

Python 3.11, standard library only (dpkg-query is called, if present, to name the packages).
Usage: python3 scripts/gate-words/extract.py [--root /work/main] [--no-write]
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import struct
import subprocess
import sys
import unicodedata
import zipfile

# --------------------------------------------------------------------------------------------
# What to look for

SOURCE_VERBS = [
    "Delete", "Remove", "Send", "Allow", "Approve", "Accept", "Pay", "Buy", "Purchase", "Submit",
    "Confirm", "Publish", "Merge", "Uninstall", "Format", "Move to Trash", "Discard", "Don't Save",
    "Close without Saving", "Erase", "Empty Trash", "Overwrite", "Post", "Reply", "Reply All",
    "Forward", "Share", "Checkout", "Check out", "Place order", "Transfer", "Install",
    "Delete Permanently", "Wipe", "Destroy", "Reset", "Shred", "Trash", "Sign", "Order now",
]

# Everyday controls: a translation that a catalog also gives for one of these is not blocked.
HARMLESS = [
    "OK", "Yes", "No", "Cancel", "Close", "Open", "Save", "Save As", "Next", "Back", "Find",
    "Find Next", "Replace", "Replace All", "Edit", "View", "Help", "Apply", "Select", "Settings",
    "Options", "Properties", "New", "Copy", "Paste", "Cut", "Undo", "Redo", "Print", "Search",
    "Refresh", "Reload", "Add", "Continue", "Done", "Finish",
]

# Beyond the list above: everyday controls whose translations collided with a source verb's
# ("Sortie" is fr for both "Check out" and "Exit"; "Ignorer" for "Discard" and "Ignore").
EXTRA_HARMLESS = [
    "Exit", "Quit", "Output", "Ignore", "Skip", "Later", "Not Now", "Go Forward",
    "Go Back", "Previous", "Next Page", "Restore",
]

# Catalogs whose strings are not controls a person presses in a desktop window: command-line
# tools (their "delete" is a status word, "FORMAT" a placeholder), folder names (xdg-user-dirs:
# "Share" is a folder), turn-by-turn directions (qtlocation: "Merge" onto a motorway), code lists.
EXCLUDED_CATALOG = re.compile(
    r"^(git|psql|postgres|pg_|initdb|pgscripts|plpgsql|libpq5|libc|tar|coreutils|gnupg2|mit-krb5|"
    r"bash|dpkg|apt|libapt|adduser|findutils|grep|sed|make|wget|gettext|binutils|bfd|ld|gas|gold|"
    r"gprof|opcodes|diffutils|elfutils|shadow|procps|psmisc|xz|systemd|Linux-PAM|man-db|iso_|"
    r"xkeyboard-config|libgweather-4.0-locations|gnutls|libidn2|net-tools|xdg-user-dirs|"
    r"qt[56]/qtlocation)[^/]*$")

# Our language code -> the locale names (gettext/Qt style, '-' read as '_') that feed it.
LANGS = {
    "de": ["de", "de_DE", "de_AT", "de_CH"],
    "fr": ["fr", "fr_FR", "fr_CA", "fr_BE", "fr_CH"],
    "es": ["es", "es_ES", "es_MX", "es_419", "es_AR", "es_CL", "es_CO", "es_CR", "es_DO", "es_EC",
           "es_GT", "es_HN", "es_NI", "es_PA", "es_PE", "es_PR", "es_SV", "es_UY", "es_VE"],
    "pt": ["pt", "pt_PT", "pt_BR"],
    "ru": ["ru", "ru_RU"],
    "zh": ["zh_CN", "zh_TW"],
    "ja": ["ja", "ja_JP"],
    "ar": ["ar"],
    "he": ["he", "he_IL", "iw"],
}
LOCALE_TO_LANG = {loc.lower(): lang for lang, locs in LANGS.items() for loc in locs}
LANG_ORDER = ["de", "fr", "es", "pt", "ru", "zh", "ja", "ar", "he"]

# Language codes whose script is not Latin: there an English msgstr means "not translated".
MAX_WORDS = 3
MAX_CHARS = 32
MAX_CHARS_UNSPACED = 10  # CJK labels have no spaces: a label longer than this is a sentence

# --------------------------------------------------------------------------------------------
# Normalization


def norm_space(s: str) -> str:
    s = s.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")
    return re.sub(r"\s+", " ", s).strip()


def strip_ellipsis_colon(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = s.strip()
        for tail in ("...", "…", "．．．", "。。。", ":", "：", "..", "⋯"):
            if s.endswith(tail):
                s = s[: -len(tail)]
    return s.strip()


def strip_mnemonics(s: str) -> tuple[str, bool]:
    """Remove accelerator markers; return the text and whether there was one."""
    had = False
    # CJK style: 删除(_D), 削除(&D), 삭제(~D), also full-width parentheses, anywhere.
    s2 = re.sub(r"\s*[\(（]\s*[_&~]\s*[A-Za-z0-9]\s*[\)）]", "", s)
    had |= s2 != s
    s = s2
    s2 = s.replace("&&", "\0").replace("&", "").replace("\0", "&")
    had |= s2 != s
    s = s2
    s2 = re.sub(r"_(?=\S)", "", s)
    had |= s2 != s
    s = s2
    s2 = re.sub(r"~(?=\S)", "", s)  # LibreOffice
    had |= s2 != s
    s = s2
    return s, had


def clean(s: str) -> tuple[str, bool]:
    s = unicodedata.normalize("NFC", s)
    # Format characters (ZWNJ, bidi marks, soft hyphen) are invisible and the gate drops them.
    s = "".join(c for c in s if unicodedata.category(c) != "Cf")
    s, had = strip_mnemonics(s)
    s = norm_space(s)
    s = strip_ellipsis_colon(s)
    s = strip_ellipsis_colon(norm_space(s))
    return s, had


def key_of(s: str) -> str:
    s = s.replace("’", "'").replace("‘", "'")
    return norm_space(s).casefold()


SOURCE_KEYS = {key_of(v): v for v in SOURCE_VERBS}
# Other spellings of a source verb that catalogs use for the same control.
SOURCE_ALIASES = {"Close Without Saving": "Close without Saving", "Reply to All": "Reply All"}
SOURCE_KEYS.update({key_of(a): v for a, v in SOURCE_ALIASES.items()})
HARMLESS_KEYS = {key_of(v): v for v in HARMLESS + EXTRA_HARMLESS}

# --------------------------------------------------------------------------------------------
# Catalog readers.  Each yields (context, source, translation) strings.


def read_mo(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 28:
        return
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0x950412DE:
        e = "<"
    elif magic == 0xDE120495:
        e = ">"
    else:
        return
    _rev, n, o, t = struct.unpack(e + "4I", data[4:20])
    entries = []
    charset = "utf-8"
    for i in range(n):
        ol, oo = struct.unpack(e + "2I", data[o + 8 * i: o + 8 * i + 8])
        tl, to = struct.unpack(e + "2I", data[t + 8 * i: t + 8 * i + 8])
        mid = data[oo: oo + ol]
        mstr = data[to: to + tl]
        if mid == b"":
            m = re.search(rb"charset=([A-Za-z0-9_-]+)", mstr)
            if m:
                charset = m.group(1).decode("ascii")
            continue
        entries.append((mid, mstr))
    for mid, mstr in entries:
        if b"\0" in mid:  # plural forms: never a short label
            continue
        try:
            mid_s = mid.decode(charset)
            mstr_s = mstr.decode(charset)
        except (UnicodeDecodeError, LookupError):
            mid_s = mid.decode("utf-8", "replace")
            mstr_s = mstr.decode("utf-8", "replace")
        ctx = ""
        if "\x04" in mid_s:
            ctx, mid_s = mid_s.split("\x04", 1)
        yield ctx, mid_s, mstr_s


QM_MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")


def read_qm(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(QM_MAGIC):
        return
    pos = 16
    messages = None
    while pos + 5 <= len(data):
        tag = data[pos]
        ln = struct.unpack(">I", data[pos + 1: pos + 5])[0]
        if tag == 0x69:
            messages = data[pos + 5: pos + 5 + ln]
        pos += 5 + ln
    if messages is None:
        return
    m = 0
    end = len(messages)
    src = ctx = ""
    trans = []

    def dec8(b):
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            return b.decode("latin-1")

    while m < end:
        tag = messages[m]
        m += 1
        if tag == 1:  # end of message
            if trans and trans[0] is not None and src:
                if len(trans) == 1:
                    yield ctx, src, trans[0]
            src = ctx = ""
            trans = []
        elif tag == 3:  # translation, UTF-16BE
            ln = struct.unpack(">I", messages[m: m + 4])[0]
            m += 4
            if ln == 0xFFFFFFFF:
                trans.append(None)
            else:
                trans.append(messages[m: m + ln].decode("utf-16-be", "replace"))
                m += ln
        elif tag in (2, 4, 6, 7, 8):
            ln = struct.unpack(">I", messages[m: m + 4])[0]
            m += 4
            raw = messages[m: m + ln]
            m += ln
            if tag == 6:
                src = dec8(raw)
            elif tag == 7:
                ctx = dec8(raw)
            elif tag == 2:
                src = raw.decode("utf-16-be", "replace")
            elif tag == 4:
                ctx = raw.decode("utf-16-be", "replace")
        elif tag == 5:
            m += 4
        else:  # unknown layout: stop rather than misread
            return


def read_pak(path):
    """Chromium .pak (version 4 or 5): {resource id: text}."""
    with open(path, "rb") as f:
        data = f.read()
    version = struct.unpack("<I", data[:4])[0]
    if version == 5:
        _v, enc, n, aliases = struct.unpack("<IBxxxHH", data[:12])
        base = 12
    elif version == 4:
        _v, n, enc = struct.unpack("<IIB", data[:9])
        aliases = 0
        base = 9
    else:
        return {}
    ents = [struct.unpack("<HI", data[base + 6 * i: base + 6 * i + 6]) for i in range(n + 1)]
    out = {}
    for i in range(n):
        rid, off = ents[i]
        raw = data[off: ents[i + 1][1]]
        try:
            out[rid] = raw.decode("utf-16-le" if enc == 2 else "utf-8")
        except UnicodeDecodeError:
            continue
    apos = base + 6 * (n + 1)
    for j in range(aliases):
        rid, idx = struct.unpack("<HH", data[apos + 4 * j: apos + 4 * j + 4])
        if ents[idx][0] in out:
            out[rid] = out[ents[idx][0]]
    return out


def parse_ftl(text):
    """Single-line Fluent messages and attributes: {(id, attr): value}. Multi-line ones skipped."""
    out = {}
    cur = None
    last = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            last = None
            continue
        m = re.match(r"^([A-Za-z][\w-]*)\s*=\s*(.*)$", line)
        if m:
            cur = m.group(1)
            last = (cur, "")
            if m.group(2).strip():
                out[last] = m.group(2).strip()
            continue
        m = re.match(r"^\s+\.([\w-]+)\s*=\s*(.*)$", line)
        if m and cur:
            last = (cur, m.group(1))
            if m.group(2).strip():
                out[last] = m.group(2).strip()
            continue
        if line[:1] in (" ", "\t") and last in out:
            out[last] = out[last] + "\n" + line.strip()  # continuation: made a sentence
        if line.startswith("-"):
            cur = None
            last = None
    return {k: v for k, v in out.items() if "\n" not in v}


def parse_properties(text):
    out = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#!":
            continue
        m = re.match(r"^([^=:\s]+)\s*[=:]\s*(.*)$", s)
        if m:
            out[(m.group(1), "")] = m.group(2)
    return out


def ff_norm_path(name, loc):
    parts = name.split("/")
    if parts and parts[0] == "browser":
        parts = parts[1:]
    return "/".join(p for p in parts if p != loc)


def read_firefox_zip(path, loc):
    out = {}
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return out
    with z:
        for name in z.namelist():
            if not (name.endswith(".ftl") or name.endswith(".properties")):
                continue
            if f"/{loc}/" not in f"/{name}":
                continue
            try:
                text = z.read(name).decode("utf-8")
            except (UnicodeDecodeError, KeyError, zipfile.BadZipFile):
                continue
            msgs = parse_ftl(text) if name.endswith(".ftl") else parse_properties(text)
            out[ff_norm_path(name, loc)] = msgs
    return out


# --------------------------------------------------------------------------------------------
# Scanning


class Hit:
    __slots__ = ("lang", "locale", "catalog", "path", "ctx", "source_raw", "verb", "text",
                 "had_mnemonic", "raw", "raw_source_colon", "src_orig")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def locale_lang(loc):
    return LOCALE_TO_LANG.get(loc.replace("-", "_").lower())


def scan():
    """Yield (lang, locale, catalog id, file path, ctx, source, translation)."""
    # gettext .mo and KDE *_qt.qm under /usr/share/locale
    for d in sorted(glob.glob("/usr/share/locale/*/LC_MESSAGES")):
        loc = d.split("/")[-2]
        lang = locale_lang(loc)
        if not lang:
            continue
        for p in sorted(glob.glob(d + "/*.mo")):
            cat = os.path.basename(p)
            for ctx, src, tr in read_mo(p):
                yield lang, loc, cat, p, ctx, src, tr
        for p in sorted(glob.glob(d + "/*.qm")):
            cat = os.path.basename(p)
            for ctx, src, tr in read_qm(p):
                yield lang, loc, cat, p, ctx, src, tr
    # LibreOffice
    for d in sorted(glob.glob("/usr/lib/libreoffice/program/resource/*/LC_MESSAGES")):
        loc = d.split("/")[-2]
        lang = locale_lang(loc)
        if not lang:
            continue
        for p in sorted(glob.glob(d + "/*.mo")):
            cat = "libreoffice/" + os.path.basename(p)
            for ctx, src, tr in read_mo(p):
                yield lang, loc, cat, p, ctx, src, tr
    # Qt 5 and Qt 6 translations
    for qt in ("qt5", "qt6"):
        for p in sorted(glob.glob(f"/usr/share/{qt}/translations/*.qm")):
            stem = os.path.basename(p)[:-3]
            m = re.match(r"^(.*?)_([a-z]{2,3}(?:_[A-Za-z]{2,4})?)$", stem)
            if not m:
                continue
            lang = locale_lang(m.group(2))
            if not lang:
                continue
            cat = f"{qt}/{m.group(1)}.qm"
            for ctx, src, tr in read_qm(p):
                yield lang, m.group(2), cat, p, ctx, src, tr
    # Chromium
    en = "/usr/lib/chromium/locales/en-US.pak"
    if os.path.exists(en):
        en_strings = read_pak(en)
        for p in sorted(glob.glob("/usr/lib/chromium/locales/*.pak")):
            loc = os.path.basename(p)[:-4]
            lang = locale_lang(loc)
            if not lang:
                continue
            for rid, tr in sorted(read_pak(p).items()):
                src = en_strings.get(rid)
                if src is not None:
                    yield lang, loc, "chromium", p, f"IDS#{rid}", src, tr
    # Firefox ESR language packs
    ff_dir = "/usr/lib/firefox-esr"
    if os.path.isdir(ff_dir):
        en_msgs = {}
        for omni in (f"{ff_dir}/omni.ja", f"{ff_dir}/browser/omni.ja"):
            if os.path.exists(omni):
                en_msgs.update(read_firefox_zip(omni, "en-US"))
        for p in sorted(glob.glob(f"{ff_dir}/browser/extensions/langpack-*@firefox-esr.mozilla.org.xpi")
                        + glob.glob("/usr/share/firefox-esr/browser/extensions/langpack-*.xpi")):
            loc = os.path.basename(p)[len("langpack-"):].split("@")[0]
            lang = locale_lang(loc)
            if not lang:
                continue
            for fpath, msgs in sorted(read_firefox_zip(p, loc).items()):
                en_file = en_msgs.get(fpath, {})
                for (mid, attr), tr in sorted(msgs.items()):
                    src = en_file.get((mid, attr))
                    if src is not None:
                        ctx = mid + ("." + attr if attr else "")
                        yield lang, loc, "firefox-esr/" + fpath, p, ctx, src, tr


# --------------------------------------------------------------------------------------------
# Quality rules

SENTENCE_PUNCT = set(".,!?;:。，！？；：、،؛؟\"«»“”„()（）[]【】「」『』<>|/\\")
PLACEHOLDER = re.compile(r"%|\{|\}|\$|\\n|\n|\t|<[a-z/]")
NON_LATIN = {"ru", "zh", "ja", "ar", "he"}
VERB_CONTEXT = re.compile(r"menu|action|verb|button|command|toolbar|notebookbar|uno:|STR_GID_", re.I)


KEY_NAME_CONTEXT = re.compile(r"keyboard|key.?name|shortcut", re.I)
MAIL_CONTEXT = re.compile(r"mail|message|messenger|compose", re.I)
NUMBER_SIGN_CONTEXT = re.compile(r"number|inputwin|function|formula|math|calc", re.I)


def reject_reason(h, harmless_by_lang):
    t = h.text
    if EXCLUDED_CATALOG.match(h.catalog):
        return "catalog of a command-line tool, folder names or road directions"
    if KEY_NAME_CONTEXT.search(h.ctx or ""):
        return "name of a keyboard key or shortcut (context %r)" % h.ctx
    if h.raw_source_colon or re.search(r"[:：]\s*$", norm_space(h.raw)):
        return "source is a field label (%r), not a control" % norm_space(h.src_orig)
    if re.fullmatch(r"[A-Z][A-Z ']+", h.source_raw):
        return "source is an all-caps name (function name or placeholder), not a label"
    if not t:
        return "empty after removing mnemonics"
    if PLACEHOLDER.search(t):
        return "has a placeholder or markup"
    if any(c in SENTENCE_PUNCT for c in t):
        return "has sentence punctuation"
    words = t.split()
    if len(words) > MAX_WORDS:
        return f"longer than {MAX_WORDS} words"
    if len(t) > MAX_CHARS:
        return f"longer than {MAX_CHARS} characters"
    if len(words) == 1 and len(t) > MAX_CHARS_UNSPACED and h.lang in ("zh", "ja"):
        return f"longer than {MAX_CHARS_UNSPACED} characters without a space"
    if key_of(t) == key_of(h.verb) or key_of(t) == key_of(h.source_raw):
        return "same as the English word (already covered by it)"
    if h.lang in NON_LATIN and re.fullmatch(r"[A-Za-z' -]+", t):
        return "left untranslated (Latin letters only)"
    if h.verb == "Format":
        # LibreOffice's dialogs give mnemonics to field labels too: there only the context counts.
        mnemonic_counts = h.had_mnemonic and not h.catalog.startswith("libreoffice/")
        if not (mnemonic_counts or VERB_CONTEXT.search(h.ctx or "")):
            return "Format not used as a menu/verb here (no mnemonic, no action/menu context)"
    if h.verb == "Forward" and not (h.catalog.startswith("evolution")
                                    or MAIL_CONTEXT.search(h.ctx or "")):
        return "Forward in the navigation sense (Back/Forward), not forwarding a message"
    if h.verb == "Sign" and (NUMBER_SIGN_CONTEXT.search(h.ctx or "")
                             or h.catalog.startswith("gnome-calculator")):
        return "Sign in the sense of a number's sign (+/-), not signing"
    harmless = harmless_by_lang.get(h.lang, {}).get(key_of(t))
    if harmless:
        return "also a translation of harmless " + "; ".join(
            f'"{w}" in ' + ", ".join(sorted(cats)[:4]) + (" ..." if len(cats) > 4 else "")
            for w, cats in sorted(harmless.items()))
    return None


# --------------------------------------------------------------------------------------------


def rust_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def family_of(cat: str) -> str:
    base = cat.split("/")[0]
    stem = os.path.basename(cat).rsplit(".", 1)[0]
    if cat.startswith("libreoffice/"):
        return "LibreOffice"
    if cat.startswith("firefox-esr/"):
        return "Firefox ESR"
    if cat == "chromium":
        return "Chromium"
    if base in ("qt5", "qt6"):
        return "Qt"
    if stem in ("gtk20", "gtk30", "gtk40"):
        return "GTK"
    if stem == "glib20":
        return "GLib"
    if stem in ("thunar", "exo", "libxfce4ui", "libxfce4util", "xfconf", "mousepad"):
        return "Xfce"
    if stem == "nautilus":
        return "Nautilus"
    if stem.startswith("evolution"):
        return "Evolution"
    if stem == "gnome-software":
        return "GNOME Software"
    if stem == "libadwaita":
        return "libadwaita"
    if (stem.endswith("5") or stem.endswith("5_qt") or stem.startswith("libkirigami")
            or stem in ("kdecoration", "plasmaintegration5", "kcalc")
            or stem.startswith("breeze") or stem.startswith("libkpackage")):
        return "KDE"
    return "other"


def packages_of(paths):
    """{path: package} via dpkg-query -S (missing tool or file: nothing)."""
    res = {}
    paths = sorted(set(paths))
    for i in range(0, len(paths), 200):
        chunk = paths[i: i + 200]
        try:
            out = subprocess.run(["dpkg-query", "-S"] + chunk, capture_output=True, text=True,
                                 check=False).stdout
        except OSError:
            return res
        for line in out.splitlines():
            if ": " not in line:
                continue
            pkgs, path = line.rsplit(": ", 1)
            if "diversion" in pkgs:
                continue
            res[path] = pkgs.split(",")[0].split(":")[0].strip()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__),
                                                                   "..", "..")))
    ap.add_argument("--no-write", action="store_true", help="print a summary only")
    args = ap.parse_args()

    hits = []
    # lang -> translation key -> harmless English word -> catalogs that say so
    harmless_by_lang = collections.defaultdict(
        lambda: collections.defaultdict(lambda: collections.defaultdict(set)))
    catalogs_read = set()
    for lang, loc, cat, path, ctx, src, tr in scan():
        catalogs_read.add(path)
        if not tr:
            continue
        s_clean, _ = clean(src)
        k = key_of(s_clean)
        if (k in HARMLESS_KEYS and not EXCLUDED_CATALOG.match(cat)
                and not KEY_NAME_CONTEXT.search(ctx) and not re.search(r"[:：]\s*$", src)):
            t_clean, _ = clean(tr)
            if t_clean:
                harmless_by_lang[lang][key_of(t_clean)][HARMLESS_KEYS[k]].add(f"{cat}[{loc}]")
        if k in SOURCE_KEYS:
            s_nfc = unicodedata.normalize("NFC", src)
            _, had = strip_mnemonics(s_nfc)
            t_clean, _ = clean(tr)
            h = Hit(lang=lang, locale=loc, catalog=cat, path=path, ctx=ctx, source_raw=s_clean,
                    verb=SOURCE_KEYS[k], text=t_clean, had_mnemonic=had, raw=tr)
            h.src_orig = src
            h.raw_source_colon = bool(re.search(r"[:：]\s*$", norm_space(src)))
            hits.append(h)

    # Group: (lang, verb, key of translation) -> hits
    kept = collections.defaultdict(list)
    dropped = collections.defaultdict(lambda: collections.defaultdict(list))
    for h in hits:
        why = reject_reason(h, harmless_by_lang)
        if why is None:
            kept[(h.lang, h.verb, key_of(h.text))].append(h)
        else:
            dropped[(h.lang, h.verb)][(h.text, why)].append(h)

    rows = []  # (lang, verb, shown text, count, hits)
    for (lang, verb, _k), hs in kept.items():
        forms = collections.Counter(h.text for h in hs)
        shown = sorted(forms.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        cats = sorted({h.catalog for h in hs})
        rows.append((lang, verb, shown, len(cats), hs))
    rows.sort(key=lambda r: (LANG_ORDER.index(r[0]), SOURCE_VERBS.index(r[1]), r[2]))

    used_paths = {h.path for r in rows for h in r[4]}
    pkg = packages_of(used_paths)
    used_pkgs = sorted({pkg[p] for p in used_paths if p in pkg})
    families = sorted({family_of(h.catalog) for r in rows for h in r[4]} - {"other"})
    if any(family_of(h.catalog) == "other" for r in rows for h in r[4]):
        families.append("other desktop catalogs")
    all_pkgs = sorted(set(packages_of(catalogs_read).values()))

    # ---- Rust
    lines = [
        "//! Generated by scripts/gate-words/extract.py from the translation catalogs of "
        + ", ".join(families)
        + " on Debian 12; do not edit by hand, run the script again.",
        "//! Catalogs from the Debian packages " + ", ".join(used_pkgs) + ".",
        "",
        "/// (language code, English source verb, translated word as a UI shows it, how many catalogs gave it)",
        "pub const TRANSLATED: &[(&str, &str, &str, u32)] = &[",
    ]
    for lang, verb, shown, n, _hs in rows:
        lines.append(f"    ({rust_str(lang)}, {rust_str(verb)}, {rust_str(shown)}, {n}),")
    lines.append("];")
    rust = "\n".join(lines) + "\n"

    # ---- report
    rep = []
    rep.append("Gate words from the installed translation catalogs (generated by extract.py)")
    rep.append("=" * 76)
    rep.append(f"catalog files read: {len(catalogs_read)}; messages matching a source verb: {len(hits)}")
    rep.append("packages that own the catalogs read: " + ", ".join(all_pkgs))
    rep.append("packages whose catalogs gave a kept entry: " + ", ".join(used_pkgs))
    rep.append("count = number of distinct catalogs (the same catalog in pt and pt_BR, or zh_CN and")
    rep.append("zh_TW, counts once); a catalog is written name[locale] below.")
    rep.append("")
    per_lang = collections.Counter(r[0] for r in rows)
    rep.append("entries per language: " + ", ".join(f"{l}={per_lang.get(l, 0)}" for l in LANG_ORDER)
               + f", total={len(rows)}")
    rep.append("")
    gaps = []
    for lang in LANG_ORDER:
        rep.append("#" * 76)
        rep.append(f"# {lang}   ({per_lang.get(lang, 0)} entries)")
        rep.append("#" * 76)
        for verb in SOURCE_VERBS:
            krows = [r for r in rows if r[0] == lang and r[1] == verb]
            drops = dropped.get((lang, verb), {})
            if not krows and not drops:
                gaps.append((lang, verb, "no catalog translates it"))
                rep.append(f"{verb}: -- no catalog has this message")
                continue
            if not krows:
                gaps.append((lang, verb, "every translation was dropped"))
            rep.append(f"{verb}:")
            for _l, _v, shown, n, hs in krows:
                cats = sorted({f"{h.catalog}[{h.locale}]" for h in hs})
                variants = sorted({h.text for h in hs} - {shown})
                extra = f" (also written {', '.join(variants)})" if variants else ""
                rep.append(f"  KEEP  {shown}  x{n}{extra}: {', '.join(cats[:12])}"
                           + (f" ... +{len(cats) - 12}" if len(cats) > 12 else ""))
            for (text, why), hs in sorted(drops.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                cats = sorted({f"{h.catalog}[{h.locale}]" for h in hs})
                shown = text if len(text) <= 60 else text[:57] + "..."
                rep.append(f"  drop  {shown!r}: {why}; {', '.join(cats[:6])}"
                           + (f" ... +{len(cats) - 6}" if len(cats) > 6 else ""))
        rep.append("")
    rep.append("#" * 76)
    rep.append("# (language, verb) pairs with no kept translation")
    rep.append("#" * 76)
    for lang in LANG_ORDER:
        g = [f"{v} ({why})" for l, v, why in gaps if l == lang]
        rep.append(f"{lang}: " + ("; ".join(g) if g else "none"))
    rep.append("")
    rep.append("#" * 76)
    rep.append("# to review: dropped only because ONE catalog also uses it for a harmless word")
    rep.append("#" * 76)
    for (lang, verb), drops in sorted(dropped.items(), key=lambda kv: (LANG_ORDER.index(kv[0][0]),
                                                                         SOURCE_VERBS.index(kv[0][1]))):
        for (text, why), hs in sorted(drops.items()):
            if not why.startswith("also a translation of harmless"):
                continue
            ev = harmless_by_lang[lang][key_of(text)]
            cats = set().union(*ev.values())
            if len(cats) == 1:
                rep.append(f"{lang} {verb}: {text!r} ({len({h.catalog for h in hs})} catalogs for "
                           f"{verb}) is {'/'.join(sorted(ev))} only in {next(iter(cats))}")
    report = "\n".join(rep) + "\n"

    summary = ", ".join(f"{l}={per_lang.get(l, 0)}" for l in LANG_ORDER)
    if args.no_write:
        print(summary)
        return
    out_rs = os.path.join(args.root, "core", "src", "safety_words.rs")
    out_rep = os.path.join(args.root, "scripts", "gate-words", "report.txt")
    with open(out_rs, "w", encoding="utf-8") as f:
        f.write(rust)
    with open(out_rep, "w", encoding="utf-8") as f:
        f.write(report)
    print(f"wrote {out_rs} ({len(rows)} entries: {summary})")
    print(f"wrote {out_rep}")


if __name__ == "__main__":
    sys.exit(main())
