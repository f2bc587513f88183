//! `gui_clipboard` against the scripted backend: reading is off by default, writing works, and
//! neither text reaches the audit log.

use cu_backend_scripted::Scripted;
use cu_core::ErrorCode;

use super::test_support::block_on;
use super::{ClipboardOp, ClipboardRequest, Service};

fn service(dir: &std::path::Path, read: bool) -> (Scripted, Service) {
    let backend = Scripted::new();
    let mut config = cu_core::config::Config::defaults(&|_| None);
    config.sessions_dir = dir.to_path_buf();
    config.clipboard_read = read;
    let service = Service::new(std::sync::Arc::new(backend.clone()), config);
    (backend, service)
}

fn write(text: &str) -> ClipboardRequest {
    ClipboardRequest {
        op: ClipboardOp::Write,
        text: Some(text.into()),
    }
}

const READ: ClipboardRequest = ClipboardRequest {
    op: ClipboardOp::Read,
    text: None,
};

#[test]
fn reading_is_off_unless_configured_and_no_text_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let (_, off) = service(dir.path(), false);
    let done = block_on(off.gui_clipboard(&write("hunter2 שלום"))).unwrap();
    assert_eq!(done.chars, 12);
    let refused = block_on(off.gui_clipboard(&READ)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::NotAllowed);
    assert_eq!(refused.details.unwrap()["config_key"], "clipboard.read");
    let (backend, on) = service(dir.path(), true);
    block_on(on.gui_clipboard(&write("hunter2 שלום"))).unwrap();
    let read = block_on(on.gui_clipboard(&READ)).unwrap();
    assert_eq!(read.text.as_deref(), Some("hunter2 שלום"));
    drop(backend);
    let log = std::fs::read_to_string(dir.path().join("actions.log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    assert!(!log.contains("hunter2"), "{log}");
}

#[test]
fn bad_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, service) = service(dir.path(), true);
    for req in [
        ClipboardRequest {
            op: ClipboardOp::Write,
            text: None,
        },
        ClipboardRequest {
            op: ClipboardOp::Read,
            text: Some("x".into()),
        },
        write(&"x".repeat(100_001)),
        write("a\0b"),
    ] {
        let e = block_on(service.gui_clipboard(&req)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{req:?}");
    }
}
