//! A retained `AXUIElementRef` and the attribute calls on it, with Core Foundation values turned
//! into Rust ones.

use std::ffi::c_void;

use accessibility_sys::{
    kAXErrorSuccess, kAXValueTypeAXError, kAXValueTypeCGPoint, kAXValueTypeCGSize, AXError,
    AXUIElementCopyActionNames, AXUIElementCopyAttributeValue, AXUIElementCopyElementAtPosition,
    AXUIElementCopyMultipleAttributeValues, AXUIElementCreateApplication, AXUIElementGetTypeID,
    AXUIElementIsAttributeSettable, AXUIElementPerformAction, AXUIElementRef,
    AXUIElementSetAttributeValue, AXUIElementSetMessagingTimeout, AXValueCreate, AXValueGetType,
    AXValueGetTypeID, AXValueGetValue, AXValueRef,
};
use core_foundation::array::CFArray;
use core_foundation::base::{CFType, CFTypeRef, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use core_graphics::geometry::{CGPoint, CGSize};
use cu_core::model::geometry::Rect;

/// Seconds an app may take to answer one AX call before `kAXErrorCannotComplete`.
const MESSAGING_TIMEOUT_S: f32 = 2.0;

/// One AX element, retained.
#[derive(Clone)]
pub(super) struct AxElement(CFType);

/// One attribute value, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum AxValue {
    Text(String),
    Bool(bool),
    Number(f64),
    Point(f64, f64),
    Size(f64, f64),
    Elements(Vec<AxElement>),
    Element(AxElement),
    Other,
}

impl std::fmt::Debug for AxElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AxElement")
    }
}

impl PartialEq for AxElement {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

fn ok(code: AXError) -> Result<(), AXError> {
    if code == kAXErrorSuccess {
        Ok(())
    } else {
        Err(code)
    }
}

impl AxElement {
    /// The application element of `pid`, with a bounded messaging timeout.
    pub(super) fn application(pid: i32) -> Option<AxElement> {
        // SAFETY: creates a new AX element (create rule); null is checked.
        let raw = unsafe { AXUIElementCreateApplication(pid) };
        let app = AxElement::from_create_rule(raw)?;
        // SAFETY: a valid element; the timeout applies to calls on it and its descendants.
        unsafe { AXUIElementSetMessagingTimeout(app.raw(), MESSAGING_TIMEOUT_S) };
        Some(app)
    }

    /// The deepest element of this application at a global point (top-left origin, points).
    pub(super) fn element_at_position(&self, x: f64, y: f64) -> Result<Option<AxElement>, AXError> {
        let mut out: AXUIElementRef = std::ptr::null_mut();
        // SAFETY: `self` is a valid application element; `out` receives a retained element
        // (create rule) on success.
        ok(unsafe { AXUIElementCopyElementAtPosition(self.raw(), x as f32, y as f32, &mut out) })?;
        Ok(AxElement::from_create_rule(out))
    }

    fn from_create_rule(raw: AXUIElementRef) -> Option<AxElement> {
        if raw.is_null() {
            return None;
        }
        // SAFETY: `raw` is a non-null AXUIElementRef we own (create rule).
        Some(AxElement(unsafe {
            CFType::wrap_under_create_rule(raw as CFTypeRef)
        }))
    }

    /// An element the caller does not own (a callback's argument), retained here.
    pub(super) fn from_get_rule(raw: AXUIElementRef) -> Option<AxElement> {
        if raw.is_null() {
            return None;
        }
        // SAFETY: `raw` is a non-null AXUIElementRef valid for the caller's call; the wrapper
        // retains it (get rule).
        Some(AxElement(unsafe {
            CFType::wrap_under_get_rule(raw as CFTypeRef)
        }))
    }

    pub(super) fn raw(&self) -> AXUIElementRef {
        self.0.as_CFTypeRef() as AXUIElementRef
    }

    /// One attribute.
    pub(super) fn attribute(&self, name: &str) -> Result<AxValue, AXError> {
        let key = CFString::new(name);
        let mut out: CFTypeRef = std::ptr::null();
        // SAFETY: `out` receives a retained value (create rule) on success.
        ok(unsafe {
            AXUIElementCopyAttributeValue(self.raw(), key.as_concrete_TypeRef(), &mut out)
        })?;
        if out.is_null() {
            return Ok(AxValue::Other);
        }
        // SAFETY: a non-null value we own.
        Ok(decode(&unsafe { CFType::wrap_under_create_rule(out) }))
    }

    /// Several attributes in one call (`AXUIElementCopyMultipleAttributeValues`); a missing
    /// attribute comes back as `None`.
    pub(super) fn attributes(
        &self,
        names: &CFArray<CFString>,
    ) -> Result<Vec<Option<AxValue>>, AXError> {
        let mut out: core_foundation::array::CFArrayRef = std::ptr::null();
        // SAFETY: `names` is a valid CFArray of CFStrings; `out` receives a retained array.
        ok(unsafe {
            AXUIElementCopyMultipleAttributeValues(
                self.raw(),
                names.as_concrete_TypeRef(),
                // Not StopOnError: one missing attribute must not hide the others.
                0,
                &mut out,
            )
        })?;
        if out.is_null() {
            return Err(accessibility_sys::kAXErrorCannotComplete);
        }
        // SAFETY: a non-null CFArray we own, of CFTypes.
        let values: CFArray<CFType> = unsafe { CFArray::wrap_under_create_rule(out) };
        Ok(values.iter().map(|v| decode_present(&v)).collect())
    }

    /// The action names the element offers.
    pub(super) fn actions(&self) -> Vec<String> {
        let mut out: core_foundation::array::CFArrayRef = std::ptr::null();
        // SAFETY: `out` receives a retained array on success.
        if ok(unsafe { AXUIElementCopyActionNames(self.raw(), &mut out) }).is_err() || out.is_null()
        {
            return Vec::new();
        }
        // SAFETY: a non-null CFArray of CFStrings we own.
        let names: CFArray<CFString> = unsafe { CFArray::wrap_under_create_rule(out) };
        names.iter().map(|n| n.to_string()).collect()
    }

    /// Whether an attribute can be set.
    pub(super) fn settable(&self, name: &str) -> bool {
        let key = CFString::new(name);
        let mut settable: u8 = 0;
        // SAFETY: `settable` is a writable byte.
        ok(unsafe {
            AXUIElementIsAttributeSettable(self.raw(), key.as_concrete_TypeRef(), &mut settable)
        })
        .is_ok()
            && settable != 0
    }

    /// Sets an attribute to a Core Foundation value.
    pub(super) fn set(&self, name: &str, value: &CFType) -> Result<(), AXError> {
        let key = CFString::new(name);
        // SAFETY: valid element, key and value for the call's duration.
        ok(unsafe {
            AXUIElementSetAttributeValue(
                self.raw(),
                key.as_concrete_TypeRef(),
                value.as_CFTypeRef(),
            )
        })
    }

    /// Sets a boolean attribute.
    pub(super) fn set_bool(&self, name: &str, value: bool) -> Result<(), AXError> {
        let b = if value {
            CFBoolean::true_value()
        } else {
            CFBoolean::false_value()
        };
        self.set(name, &b.as_CFType())
    }

    /// Sets `AXPosition` (a point) or `AXSize` (a size) in global points.
    pub(super) fn set_geometry(&self, name: &str, geometry: Geometry) -> Result<(), AXError> {
        // SAFETY: each pointer is to a live value of the type its AXValue kind names;
        // AXValueCreate copies it.
        let raw = unsafe {
            match &geometry {
                Geometry::Point(p) => {
                    AXValueCreate(kAXValueTypeCGPoint, (p as *const CGPoint).cast())
                }
                Geometry::Size(z) => AXValueCreate(kAXValueTypeCGSize, (z as *const CGSize).cast()),
            }
        };
        if raw.is_null() {
            return Err(accessibility_sys::kAXErrorFailure);
        }
        // SAFETY: AXValueCreate follows the create rule: we own the one reference.
        let value = unsafe { CFType::wrap_under_create_rule(raw as CFTypeRef) };
        self.set(name, &value)
    }

    /// Performs an action by name.
    pub(super) fn perform(&self, action: &str) -> Result<(), AXError> {
        let name = CFString::new(action);
        // SAFETY: valid element and action name.
        ok(unsafe { AXUIElementPerformAction(self.raw(), name.as_concrete_TypeRef()) })
    }

    /// `AXPosition` + `AXSize` as a rectangle in global points.
    pub(super) fn frame(&self) -> Option<Rect> {
        frame_of(
            self.attribute("AXPosition").ok(),
            self.attribute("AXSize").ok(),
        )
    }
}

/// A value for [`AxElement::set_geometry`].
pub(super) enum Geometry {
    /// For `AXPosition`.
    Point(CGPoint),
    /// For `AXSize`.
    Size(CGSize),
}

/// A rectangle from decoded `AXPosition` and `AXSize` values.
pub(super) fn frame_of(position: Option<AxValue>, size: Option<AxValue>) -> Option<Rect> {
    match (position?, size?) {
        (AxValue::Point(x, y), AxValue::Size(w, h)) => Some(Rect::new(
            x.round() as i32,
            y.round() as i32,
            w.round() as i32,
            h.round() as i32,
        )),
        _ => None,
    }
}

/// The attribute names as a CFArray, for [`AxElement::attributes`].
pub(super) fn names(list: &[&str]) -> CFArray<CFString> {
    let strings: Vec<CFString> = list.iter().map(|n| CFString::new(n)).collect();
    CFArray::from_CFTypes(&strings)
}

/// `None` for the AXValue-wrapped errors that stand for missing attributes in a batch.
fn decode_present(v: &CFType) -> Option<AxValue> {
    // SAFETY: a type-id read.
    if v.type_of() == unsafe { AXValueGetTypeID() } {
        // SAFETY: `v` is an AXValueRef, as its type id says.
        if unsafe { AXValueGetType(v.as_CFTypeRef() as AXValueRef) } == kAXValueTypeAXError {
            return None;
        }
    }
    Some(decode(v))
}

fn decode(v: &CFType) -> AxValue {
    if let Some(s) = v.downcast::<CFString>() {
        return AxValue::Text(s.to_string());
    }
    if let Some(b) = v.downcast::<CFBoolean>() {
        return AxValue::Bool(bool::from(b));
    }
    if let Some(n) = v.downcast::<CFNumber>() {
        return n.to_f64().map_or(AxValue::Other, AxValue::Number);
    }
    // SAFETY: type-id reads.
    let (ax_value, ax_element) = unsafe { (AXValueGetTypeID(), AXUIElementGetTypeID()) };
    if v.type_of() == ax_element {
        return AxValue::Element(AxElement(v.clone()));
    }
    if v.type_of() == ax_value {
        let raw = v.as_CFTypeRef() as AXValueRef;
        // SAFETY: `raw` is an AXValueRef; each read writes the struct of the type asked for,
        // and only after AXValueGetType said that is the type it holds.
        unsafe {
            match AXValueGetType(raw) {
                t if t == kAXValueTypeCGPoint => {
                    let mut p = CGPoint::new(0.0, 0.0);
                    if AXValueGetValue(raw, t, (&mut p as *mut CGPoint).cast::<c_void>()) {
                        return AxValue::Point(p.x, p.y);
                    }
                }
                t if t == kAXValueTypeCGSize => {
                    let mut s = CGSize::new(0.0, 0.0);
                    if AXValueGetValue(raw, t, (&mut s as *mut CGSize).cast::<c_void>()) {
                        return AxValue::Size(s.width, s.height);
                    }
                }
                _ => {}
            }
        }
        return AxValue::Other;
    }
    if let Some(array) = v.downcast::<CFArray>() {
        let elements: Vec<AxElement> = array
            .iter()
            // SAFETY: each item is a CF object the array keeps alive; wrapping retains it.
            .map(|item| unsafe { CFType::wrap_under_get_rule(*item) })
            .filter(|item| item.type_of() == ax_element)
            .map(AxElement)
            .collect();
        return AxValue::Elements(elements);
    }
    AxValue::Other
}
