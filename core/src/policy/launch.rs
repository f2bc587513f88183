//! Which programs the `gui_open` tool may start. Starting programs is a shell's power, so by
//! default only desktop applications are allowed: what the platform's application menu lists
//! (a `.desktop` entry on Linux, a Start-menu shortcut on Windows, a bundle in `/Applications`
//! on macOS), web and mail links, and documents that are not programs themselves. Shells,
//! terminals, interpreters and program wrappers are refused even when an application menu
//! lists them, unless the configuration's `apps.allow` names them.
//!
//! Pure: the caller passes what the application menu lists (`installed`).

use crate::error::{Error, ErrorCode, Result};

/// Programs never started by default: shells, terminals, interpreters, and wrappers that run
/// another program (sudo, env, xdg-open itself).
pub const NEVER_BY_DEFAULT: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "dash",
    "ksh",
    "csh",
    "tcsh",
    "nu",
    "pwsh",
    "powershell",
    "cmd",
    "python",
    "python3",
    "python2",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "tclsh",
    "wish",
    "osascript",
    "java",
    "wscript",
    "cscript",
    "mshta",
    "rundll32",
    "regsvr32",
    "xterm",
    "uxterm",
    "gnome-terminal",
    "konsole",
    "xfce4-terminal",
    "lxterminal",
    "mate-terminal",
    "terminator",
    "tilix",
    "alacritty",
    "kitty",
    "wezterm",
    "foot",
    "st",
    "urxvt",
    "rxvt",
    "terminal",
    "iterm",
    "iterm2",
    "wt",
    "windowsterminal",
    "env",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "nohup",
    "setsid",
    "systemd-run",
    "busybox",
    "xdg-open",
    "gio",
    "open",
    "start",
    "timeout",
    "watch",
    "screen",
    "tmux",
    "ssh",
    "docker",
    "podman",
    "flatpak",
    "snap",
    // Editors and tools with a command mode or that run commands (`vim -c '!cmd'`, `emacs
    // --eval`, `ed`'s `!`), and other interpreters.
    "vi",
    "vim",
    "view",
    "gvim",
    "nvim",
    "evim",
    "vimdiff",
    "emacs",
    "emacsclient",
    "ed",
    "ex",
    "nano",
    "micro",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "xargs",
    "find",
    "make",
    "gdb",
    "r",
    "rscript",
    "julia",
    "ghci",
    "irb",
    "erl",
    "elixir",
    "scala",
    "groovy",
    "jshell",
    "sqlite",
    "psql",
    "mysql",
    "guile",
    "racket",
    "ipython",
    "jupyter",
    "pip",
    "npm",
    "npx",
    "cargo",
    "expect",
    "dbus-send",
    "gdbus",
    "systemctl",
    "crontab",
    "at",
    "nc",
    "ncat",
    "socat",
    "curl",
    "wget",
    "rxvt-unicode",
    "qterminal",
    "sakura",
    "guake",
    "yakuake",
    "cool-retro-term",
    "x-terminal-emulator",
];

/// The family of a program's base name: the name without a trailing version or variant
/// (`python3.11`, `perl5.36`, `lua5.4`, `nvim-qt`, `bash-static` are `python`, `perl`, `lua`,
/// `nvim`, `bash`), so a versioned interpreter is refused like its family.
pub fn family(base: &str) -> &str {
    let trimmed =
        base.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'));
    let trimmed = if trimmed.is_empty() { base } else { trimmed };
    for suffix in ["-qt", "-gtk", "-static", "-nox", "-tiny", "-basic", "-gui"] {
        if let Some(stem) = trimmed.strip_suffix(suffix) {
            return stem;
        }
    }
    trimmed
}

/// Never started by default: `base` or its [`family`] is in [`NEVER_BY_DEFAULT`].
pub fn never_by_default(base: &str) -> bool {
    let base = base.strip_suffix(".exe").unwrap_or(base);
    [base, family(base)].iter().any(|name| {
        NEVER_BY_DEFAULT
            .iter()
            .any(|n| family(n) == *name || n == name)
    })
}

/// A caller's argument to a program: only an existing document path or an http(s) link
/// (`exists` says whether the path names an existing file or directory); never an option (`-c`,
/// `--renderer-cmd-prefix=…`), which could make the program run a command.
pub fn harmless_argument(arg: &str, exists: bool) -> bool {
    if arg.starts_with('-') || arg.chars().any(char::is_control) {
        return false;
    }
    let link = arg.split_once("://").is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    });
    link || (exists && !arg.contains("://"))
}

/// Link schemes opened without an `apps.allow` entry.
pub const SAFE_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Document extensions that are programs or installers: never opened by default.
const RUNNABLE: &[&str] = &[
    "sh", "bash", "zsh", "py", "pyw", "pl", "rb", "js", "mjs", "php", "lua", "desktop", "exe",
    "com", "bat", "cmd", "ps1", "vbs", "vbe", "wsf", "msi", "msix", "appx", "lnk", "scr", "app",
    "command", "tool", "jar", "appimage", "run", "bin", "deb", "rpm", "pkg", "dmg", "reg",
];

/// What a `program` argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A link (`https://…`), with its scheme in lower case.
    Uri(String),
    /// A document path.
    Document(String),
    /// A program by name or path, with its base name in lower case without `.exe`.
    Program(String),
}

/// Classifies `program`; `is_file` says whether a path names an existing file.
pub fn classify(program: &str, is_file: bool) -> Launch {
    if let Some((scheme, _)) = program.split_once(':') {
        let valid = scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if valid {
            return Launch::Uri(scheme.to_ascii_lowercase());
        }
    }
    let base = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_lowercase();
    let has_separator = program.contains(['/', '\\']);
    // A version is not an extension: `/usr/bin/python3.11` is a program, not a ".11" document.
    let extension = base
        .rsplit_once('.')
        .map(|(_, e)| e.to_owned())
        .filter(|e| e.chars().any(|c| c.is_alphabetic()));
    if has_separator && is_file && extension.is_some_and(|e| e != "exe") {
        return Launch::Document(program.to_owned());
    }
    Launch::Program(base.strip_suffix(".exe").unwrap_or(&base).to_owned())
}

/// Whether `program` may be started: `allow` is the configuration's `apps.allow` (names or
/// paths, compared case-insensitively with the program and its base name), `installed` says
/// whether the application menu lists a program by base name.
pub fn judge(
    program: &str,
    is_file: bool,
    allow: &[String],
    installed: &dyn Fn(&str) -> bool,
) -> Result<Launch> {
    let launch = classify(program, is_file);
    let listed = |name: &str| allow.iter().any(|a| a.eq_ignore_ascii_case(name));
    if listed(program) || matches!(&launch, Launch::Program(base) if listed(base)) {
        return Ok(launch);
    }
    let refused = |why: String| {
        Err(Error::new(ErrorCode::ProgramNotAllowed, why)
            .with_suggestion(
                "Start a desktop application by its name, or ask the user to add the program to apps.allow in config.toml (MCP_CU_APPS_ALLOW).",
            )
            .with_details(serde_json::json!({ "config_key": "apps.allow", "env": "MCP_CU_APPS_ALLOW" })))
    };
    match &launch {
        Launch::Uri(scheme) if SAFE_SCHEMES.contains(&scheme.as_str()) => Ok(launch),
        Launch::Uri(scheme) => refused(format!("links of the scheme {scheme:?} are not opened by default")),
        Launch::Document(path) => {
            let ext = path
                .rsplit_once('.')
                .map(|(_, e)| e.to_ascii_lowercase())
                .unwrap_or_default();
            if RUNNABLE.contains(&ext.as_str()) {
                refused(format!("{path:?} is a program or an installer (.{ext}), not a document"))
            } else {
                Ok(launch)
            }
        }
        Launch::Program(base) if never_by_default(base) => refused(format!(
            "{base:?} is a shell, terminal, interpreter, editor with a command mode or program wrapper: never started by default"
        )),
        Launch::Program(base) if installed(base) => Ok(launch),
        Launch::Program(base) => refused(format!(
            "{base:?} is not a desktop application of this machine (no application-menu entry)"
        )),
    }
}

/// Whether a link or document path can be handed to `cmd /C start` (the Windows opener) as
/// it is: none of the characters cmd treats as its own (`&|<>^%!"`), no control characters.
pub fn cmd_safe(target: &str) -> bool {
    !target
        .chars()
        .any(|c| c.is_control() || "&|<>^%!\"".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(name: &str) -> bool {
        ["gnome-calculator", "xterm", "libreoffice", "calc"].contains(&name)
    }

    fn code(program: &str, is_file: bool, allow: &[&str]) -> Option<ErrorCode> {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        judge(program, is_file, &allow, &installed)
            .err()
            .map(|e| e.code)
    }

    #[test]
    fn the_decision_table() {
        let not = Some(ErrorCode::ProgramNotAllowed);
        let cases: &[(&str, bool, &[&str], Option<ErrorCode>)] = &[
            ("gnome-calculator", false, &[], None),
            ("/usr/bin/gnome-calculator", true, &[], None),
            ("C:\\Windows\\System32\\calc.exe", true, &[], None),
            ("https://example.org/", false, &[], None),
            ("mailto:a@example.org", false, &[], None),
            ("/home/u/report.odt", true, &[], None),
            ("/home/u/run.sh", true, &[], not),
            ("/home/u/app.desktop", true, &[], not),
            ("C:\\Users\\u\\setup.msi", true, &[], not),
            ("file:///etc/passwd", false, &[], not),
            ("ms-settings:display", false, &[], not),
            ("ms-settings:display", false, &["ms-settings:display"], None),
            ("xterm", false, &[], not),
            ("/bin/bash", true, &[], not),
            ("bash", false, &["bash"], None),
            ("Python3", false, &[], not),
            ("pwsh.exe", false, &[], not),
            ("unknown-tool", false, &[], not),
            ("unknown-tool", false, &["UNKNOWN-TOOL"], None),
            // Issue 39: versioned interpreters and editors with command modes.
            ("python3.11", false, &[], not),
            ("/usr/bin/python3.11", true, &[], not),
            ("perl5.36", false, &[], not),
            ("lua5.4", false, &[], not),
            ("vim", false, &[], not),
            ("gvim", false, &[], not),
            ("nvim-qt", false, &[], not),
            ("emacs", false, &[], not),
            ("xterm", false, &[], not),
            ("calc", false, &[], None),
        ];
        for (program, is_file, allow, want) in cases {
            assert_eq!(code(program, *is_file, allow), *want, "{program}");
        }
    }

    #[test]
    fn families_and_arguments() {
        assert_eq!(family("python3.11"), "python");
        assert_eq!(family("nvim-qt"), "nvim");
        assert_eq!(family("gnome-calculator"), "gnome-calculator");
        assert!(never_by_default("python3.11") && never_by_default("bash-static"));
        assert!(!never_by_default("gnome-calculator") && !never_by_default("libreoffice"));
        assert!(harmless_argument("https://example.org/", false));
        assert!(harmless_argument("/home/u/report.odt", true));
        assert!(!harmless_argument("/home/u/missing.odt", false));
        assert!(!harmless_argument("--renderer-cmd-prefix=sh -c x", false));
        assert!(!harmless_argument("-es", false));
        assert!(!harmless_argument("file:///etc/passwd", true));
    }

    #[test]
    fn only_plain_targets_reach_cmd() {
        assert!(cmd_safe("https://example.org/a/b?x=1"));
        assert!(cmd_safe("C:\\Users\\u\\report.docx"));
        assert!(!cmd_safe("https://example.org/?a=1&calc"));
        assert!(!cmd_safe("x\" & calc"));
        assert!(!cmd_safe("%COMSPEC%"));
    }

    #[test]
    fn refusals_name_the_config_key() {
        let e = judge("bash", false, &[], &installed).unwrap_err();
        assert_eq!(
            e.details.as_ref().map(|d| d["config_key"].clone()),
            Some("apps.allow".into())
        );
    }
}
