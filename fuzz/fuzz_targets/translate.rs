//! The platform translation tables and geometry on arbitrary numbers: AT-SPI roles, states and
//! interfaces; UIA control types, properties and DPI arithmetic; AX roles and attributes; key
//! tables; frame location and cropping. No panic, no overflow.
#![no_main]

use arbitrary::Unstructured;
use cu_core::model::geometry::{Point, Rect};
use libfuzzer_sys::fuzz_target;

const INTERFACES: &[&str] = &[
    "org.a11y.atspi.Action",
    "org.a11y.atspi.EditableText",
    "org.a11y.atspi.Value",
    "org.a11y.atspi.Text",
    "org.a11y.atspi.Component",
];
const AX_ROLES: &[&str] = &[
    "AXButton",
    "AXCheckBox",
    "AXRadioButton",
    "AXTextField",
    "AXTextArea",
    "AXStaticText",
    "AXWindow",
    "AXSheet",
    "AXMenuItem",
    "AXMenuBarItem",
    "AXRow",
    "AXCell",
    "AXWebArea",
    "AXGroup",
    "AXPopUpButton",
    "AXComboBox",
    "AXLink",
    "AXImage",
    "AXUnknown",
];
const AX_SUBROLES: &[&str] = &[
    "AXSecureTextField",
    "AXDialog",
    "AXStandardWindow",
    "AXSwitch",
    "AXSearchField",
];
const AX_ACTIONS: &[&str] = &[
    "AXPress",
    "AXShowMenu",
    "AXIncrement",
    "AXConfirm",
    "AXPick",
    "AXRaise",
];

fn rect(u: &mut Unstructured<'_>) -> arbitrary::Result<Rect> {
    Ok(Rect::new(
        u.arbitrary()?,
        u.arbitrary()?,
        u.arbitrary()?,
        u.arbitrary()?,
    ))
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    use cu_backend_linux::translate as at;
    let states = at::AtspiStates::from_words(&[u.arbitrary()?, u.arbitrary()?]);
    let names: Vec<String> = (0..u.int_in_range(0..=5)?)
        .map(|_| u.choose(INTERFACES).map(|s| s.to_string()))
        .collect::<arbitrary::Result<_>>()?;
    let role = at::role(u.arbitrary()?, states);
    let toolkit_name: String = u.arbitrary()?;
    let toolkit_version: String = u.arbitrary()?;
    let toolkit = at::Toolkit::from_name_and_version(&toolkit_name, &toolkit_version);
    let _ = at::states(states, toolkit);
    let _ = at::placeholder(&std::collections::HashMap::from([(
        "placeholder-text".to_owned(),
        toolkit_name.clone(),
    )]));
    let _ = at::actions(role, states, at::InterfaceSet::of(&names));
    let name: String = u.arbitrary()?;
    let _ = at::action_kind(&name);
    let _ = at::invoke_rank(&name);
    let _ = at::collapse_doubled_name(&name);
    let _ = at::visible_name(&name);
    let _ = cu_backend_linux::session_env::parse_env_lines(&name);
    if let Ok(combo) = name.parse::<cu_core::model::keys::Combo>() {
        let _ = cu_backend_linux::keys::keysyms(&combo);
        // What a combination shows parses back to the same keys.
        assert_eq!(combo.to_string().parse().ok(), Some(combo));
    }
    for c in name.chars().take(8) {
        let _ = cu_backend_linux::keys::keysym_of_char(c);
    }

    use cu_backend_windows::translate as uia;
    let element = uia::Element {
        control_type: u.arbitrary()?,
        is_password: u.arbitrary()?,
        heading_level: u.arbitrary()?,
        is_enabled: u.arbitrary()?,
        has_keyboard_focus: u.arbitrary()?,
        is_keyboard_focusable: u.arbitrary()?,
        is_offscreen: u.arbitrary()?,
        toggle_state: u.arbitrary()?,
        expand_state: u.arbitrary()?,
        is_selected: u.arbitrary()?,
        value_read_only: u.arbitrary()?,
        is_required: u.arbitrary()?,
        is_modal: u.arbitrary()?,
    };
    let _ = uia::role(&element);
    let _ = uia::states(&element);
    let patterns: Vec<i32> = u.arbitrary()?;
    let _ = uia::actions(&patterns, &element);
    let _ = uia::cache_too_thin(u.arbitrary()?, &name);
    let dpi: u32 = u.arbitrary()?;
    let (r, w) = (rect(u)?, rect(u)?);
    let p = Point::new(u.arbitrary()?, u.arbitrary()?);
    let _ = cu_backend_windows::dpi::scale(dpi);
    let _ = cu_backend_windows::dpi::to_logical(r, dpi);
    let _ = cu_backend_windows::dpi::to_window_logical(r, w, dpi);
    let _ = cu_backend_windows::dpi::to_screen_physical(p, w, dpi);
    let _ = cu_backend_windows::dpi::to_sendinput(p, w);
    let _ = cu_backend_windows::keys::decode_vk_key_scan(u.arbitrary()?);
    let _ = cu_backend_windows::keys::text_strokes(&name);

    use cu_backend_macos::translate as ax;
    let attributes = ax::Attributes {
        enabled: u.arbitrary()?,
        focused: u.arbitrary()?,
        selected: u.arbitrary()?,
        expanded: u.arbitrary()?,
        toggle_value: u.arbitrary()?,
        required: u.arbitrary()?,
        modal: u.arbitrary()?,
        value_settable: u.arbitrary()?,
    };
    let ax_role = if u.ratio(1, 4)? {
        name.clone()
    } else {
        u.choose(AX_ROLES)?.to_string()
    };
    let subrole = if u.arbitrary()? {
        Some(*u.choose(AX_SUBROLES)?)
    } else {
        None
    };
    let role = ax::role(&ax_role, subrole);
    let _ = ax::states(role, &attributes);
    let actions: Vec<&str> = (0..u.int_in_range(0..=3)?)
        .map(|_| u.choose(AX_ACTIONS).copied())
        .collect::<arbitrary::Result<_>>()?;
    let _ = ax::actions(role, &actions, &attributes);
    let _ = cu_backend_macos::points::to_window(r, w);
    let _ = cu_backend_macos::points::to_global(p, w);
    let _ =
        cu_backend_macos::points::capture_points(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?);
    let _ = cu_backend_macos::keys::text_runs(&name);

    // Frames: small pixels, arbitrary rectangles.
    let (fw, fh) = (u.int_in_range(0..=16u32)?, u.int_in_range(0..=16u32)?);
    let pixels: Vec<u8> = (0..fw * fh * 4)
        .map(|_| u.arbitrary().unwrap_or(255))
        .collect();
    let _ = cu_backend_linux::frame::opaque_rect(&pixels, fw, fh);
    let _ = cu_backend_linux::frame::locate_window(
        &pixels,
        fw,
        fh,
        (u.arbitrary()?, u.arbitrary()?),
        r,
    );
    let small = Rect::new(
        u.int_in_range(-64..=64)?,
        u.int_in_range(-64..=64)?,
        u.int_in_range(-8..=64)?,
        u.int_in_range(-8..=64)?,
    );
    let _ = cu_backend_linux::frame::crop(&pixels, fw, fh, small);
    let _ = cu_backend_linux::frame::crop(&pixels, fw, fh, r);
    let children: Vec<(i32, i32, i32, i32)> = u.arbitrary()?;
    let _ = cu_backend_linux::frame::content_rect((u.arbitrary()?, u.arbitrary()?), &children);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
