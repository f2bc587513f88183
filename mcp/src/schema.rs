//! The JSON Schemas `tools/list` sends: derived from the request and answer types, then made lean,
//! because a client that forwards the whole listing pays for every token of it (issue 44: 25k
//! tokens, 19k of them output schemas, before the first call).
//!
//! - **Inputs** are what a model reads to call a tool: every field with its description, inlined
//!   (no `$ref`s, which some clients cannot follow). A union of steps tagged by `type`
//!   (`gui_action`'s steps) is sent as one object whose `type` lists the kinds, each with the
//!   fields it takes ([`merge_tagged`]): the same rules in a third of the tokens. A choice among
//!   described constants is an `enum` whose choices are described in one line ([`enum_of`]).
//! - **Outputs** declare each answer's fields with their types, nested objects and arrays by
//!   their type alone, and the error answer's fields ([`declared`]). The full shapes, every
//!   nested field described, are [`full_output`]: pinned in `tests/golden/answers.json` (the SDK
//!   tests check the answers they read through `conftest.call` against them) and documented in `docs/tools.md`.
//!
//! Pure functions of the types: nothing here reads the machine.

use cu_core::ErrorAnswer;
use schemars::generate::{Contract, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// What a request type accepts, as the model reads it.
pub(crate) fn input<T: JsonSchema>() -> Value {
    let mut schema = generated::<T>(Contract::Deserialize);
    lean_input(&mut schema);
    schema
}

/// The answer shapes of a tool: `T`.
pub(crate) fn answers<T: JsonSchema>() -> Vec<Value> {
    vec![generated::<T>(Contract::Serialize)]
}

/// The answer shapes of a tool that answers one of two: `A` or `B`.
pub(crate) fn answers_either<A: JsonSchema, B: JsonSchema>() -> Vec<Value> {
    vec![
        generated::<A>(Contract::Serialize),
        generated::<B>(Contract::Serialize),
    ]
}

/// Every answer shape in full, or the error answer: what the golden file of answers pins.
#[cfg(test)]
pub(crate) fn full_output(answers: Vec<Value>) -> Value {
    let mut shapes = answers;
    shapes.push(generated::<ErrorAnswer>(Contract::Serialize));
    json!({ "type": "object", "anyOf": shapes })
}

/// What `tools/list` declares of a tool's answers: each answer's fields one level deep, or the
/// error answer's fields (two levels: `error.code`, `error.message`, …).
pub(crate) fn lean_output(answers: &[Value]) -> Value {
    let mut shapes: Vec<Value> = answers.iter().map(|a| declared(a, 1)).collect();
    shapes.push(declared(&generated::<ErrorAnswer>(Contract::Serialize), 2));
    json!({ "type": "object", "anyOf": shapes })
}

/// `schema`'s type and, `depth` levels down, its fields and which are required; nothing else
/// (no descriptions, no bounds, no choices). A schema without a type (a value of any kind, a
/// union) declares nothing of it.
pub(crate) fn declared(schema: &Value, depth: u8) -> Value {
    let Value::Object(map) = schema else {
        return json!({});
    };
    let mut out = Map::new();
    if let Some(kind) = kind_of(map) {
        out.insert("type".into(), kind);
    }
    if depth > 0 {
        if let Some(Value::Object(fields)) = map.get("properties") {
            let fields: Map<String, Value> = fields
                .iter()
                .map(|(name, field)| (name.clone(), declared(field, depth - 1)))
                .collect();
            out.insert("properties".into(), Value::Object(fields));
            if let Some(required) = map.get("required") {
                out.insert("required".into(), required.clone());
            }
        }
    }
    Value::Object(out)
}

/// The JSON type a schema says, or `string` for a choice among string constants.
fn kind_of(map: &Map<String, Value>) -> Option<Value> {
    if let Some(kind) = map.get("type") {
        return Some(kind.clone());
    }
    let constants = match (map.get("enum"), map.get("oneOf")) {
        (Some(Value::Array(values)), _) => values.iter().all(Value::is_string),
        (_, Some(Value::Array(choices))) => choices.iter().all(|c| c["const"].is_string()),
        _ => false,
    };
    constants.then(|| json!("string"))
}

/// `T`'s JSON Schema (draft 2020-12), inlined, without the generator's noise ([`tidy`]).
fn generated<T: JsonSchema>(contract: Contract) -> Value {
    let input = matches!(contract, Contract::Deserialize);
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    settings.contract = contract;
    let mut value = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
        root.remove("description");
    }
    tidy(&mut value, input);
    value
}

/// Cleans one schema and its subschemas of the generator's noise: no `format` annotations, and
/// rustdoc's wrapped lines joined in descriptions. In an input schema an optional field is just
/// left out, so `["string", "null"]` becomes `"string"` (null is still accepted) and a `null`
/// default is not said.
fn tidy(schema: &mut Value, input: bool) {
    let Value::Object(map) = schema else {
        return;
    };
    map.remove("format");
    if let Some(Value::String(text)) = map.get_mut("description") {
        *text = text.replace('\n', " ");
    }
    if input {
        if map.get("default") == Some(&Value::Null) {
            map.remove("default");
        }
        if let Some(Value::Array(types)) = map.get("type") {
            let kept: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            if let [only] = kept.as_slice() {
                let only = (*only).clone();
                map.insert("type".into(), only);
            }
        }
    }
    each_subschema(map, &mut |sub| tidy(sub, input));
}

/// Calls `f` on every direct subschema of `map`.
fn each_subschema(map: &mut Map<String, Value>, f: &mut dyn FnMut(&mut Value)) {
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub) = map.get_mut(key) {
            f(sub);
        }
    }
    for key in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(subs)) = map.get_mut(key) {
            subs.values_mut().for_each(&mut *f);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            subs.iter_mut().for_each(&mut *f);
        }
    }
}

/// Makes an input schema lean, innermost first: tagged unions merged ([`merge_tagged`]),
/// choices among described constants as enums ([`enum_of`]).
fn lean_input(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    each_subschema(map, &mut lean_input);
    if let Some(merged) = merge_tagged(map) {
        *map = merged;
    } else if let Some(choice) = enum_of(map) {
        *map = choice;
    }
}

/// A `oneOf` of objects told apart by a constant `type` field, as one object: `type` is an enum
/// of the kinds, the fields are all the kinds' fields, only `type` is required, and the
/// description lists each kind with its fields (`*` marks a required one; a field a kind means
/// otherwise than the first kind that has it carries that meaning) and what it does. Kinds that
/// give one field different types or bounds are not merged. The server still decodes each kind
/// with its own fields and refuses a field the kind does not take, naming the step.
fn merge_tagged(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let Some(Value::Array(kinds)) = map.get("oneOf") else {
        return None;
    };
    let mut names = Vec::new();
    let mut fields = Map::new();
    let mut told = Vec::new();
    for kind in kinds {
        let name = kind["properties"]["type"]["const"].as_str()?;
        let Value::Object(own) = &kind["properties"] else {
            return None;
        };
        let required: Vec<&str> = kind["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut takes = Vec::new();
        for (field, schema) in own.iter().filter(|(f, _)| *f != "type") {
            let mark = if required.contains(&field.as_str()) {
                "*"
            } else {
                ""
            };
            match fields.get(field) {
                None => {
                    fields.insert(field.clone(), schema.clone());
                    takes.push(format!("{field}{mark}"));
                }
                // The same field in another kind: the same type and bounds, or no merge.
                Some(first) if undescribed(first) != undescribed(schema) => return None,
                // Meant otherwise in this kind: its meaning goes into the kind's line.
                Some(first) if first["description"] != schema["description"] => {
                    let meant = schema["description"].as_str().unwrap_or_default();
                    takes.push(format!("{field}{mark} ({})", meant.trim_end_matches('.')));
                }
                Some(_) => takes.push(format!("{field}{mark}")),
            }
        }
        let what = kind["description"].as_str().unwrap_or_default();
        told.push(format!("{name} ({}): {what}", takes.join(", ")));
        names.push(json!(name));
    }
    let mut merged = Map::new();
    merged.insert("type".into(), json!("object"));
    let about = map
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let description = format!(
        "{about} By type, with its fields (* required): {}",
        told.join(" ")
    );
    merged.insert("description".into(), json!(description.trim()));
    let mut properties = Map::new();
    properties.insert("type".into(), json!({ "type": "string", "enum": names }));
    properties.extend(fields);
    merged.insert("properties".into(), Value::Object(properties));
    merged.insert("required".into(), json!(["type"]));
    merged.insert("additionalProperties".into(), json!(false));
    Some(merged)
}

/// `schema` without its description: what two kinds' schemas of one field must agree on.
fn undescribed(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("description");
    }
    schema
}

/// A `oneOf` of string constants as an `enum`, the constants' descriptions joined into the
/// schema's own (`"appears: An element is on screen. disappears: …"`).
fn enum_of(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let Some(Value::Array(choices)) = map.get("oneOf") else {
        return None;
    };
    let mut values = Vec::new();
    let mut told = Vec::new();
    for choice in choices {
        let value = choice["const"].as_str()?;
        if let Some(what) = choice["description"].as_str() {
            told.push(format!("{value}: {what}"));
        }
        values.push(json!(value));
    }
    let mut out: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| *k != "oneOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.insert("type".into(), json!("string"));
    out.insert("enum".into(), Value::Array(values));
    if !told.is_empty() {
        let about = map
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        out.insert(
            "description".into(),
            json!(format!("{about} {}", told.join(" ")).trim()),
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_union_is_one_object_that_says_each_kinds_fields() {
        let mut schema = json!({
            "description": "One step.",
            "oneOf": [
                {"type": "object", "description": "Click it.", "additionalProperties": false,
                 "properties": {"type": {"const": "click", "type": "string"},
                                "element_id": {"type": "string", "description": "Target."},
                                "x": {"type": "integer"}},
                 "required": ["type"]},
                {"type": "object", "description": "Press keys.", "additionalProperties": false,
                 "properties": {"type": {"const": "key", "type": "string"},
                                "keys": {"type": "string", "description": "e.g. ctrl+s"},
                                "element_id": {"type": "string", "description": "Other."}},
                 "required": ["type", "keys"]},
                {"type": "object", "additionalProperties": false,
                 "properties": {"type": {"const": "wait", "type": "string"},
                                "x": {"type": "integer", "description": "Also x."}},
                 "required": ["type"]}
            ]
        });
        lean_input(&mut schema);
        assert_eq!(
            schema["properties"]["type"]["enum"],
            json!(["click", "key", "wait"])
        );
        assert_eq!(schema["required"], json!(["type"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(
            schema["properties"]["element_id"]["description"], "Target.",
            "the first description is kept"
        );
        assert_eq!(
            schema["description"],
            "One step. By type, with its fields (* required): click (element_id, x): Click it. \
             key (element_id (Other), keys*): Press keys. wait (x (Also x)):"
        );
    }

    #[test]
    fn kinds_that_type_a_field_differently_are_not_merged() {
        let original = json!({"oneOf": [
            {"type": "object", "properties": {"type": {"const": "a", "type": "string"},
                                              "n": {"type": "integer", "maximum": 3}}},
            {"type": "object", "properties": {"type": {"const": "b", "type": "string"},
                                              "n": {"type": "integer", "maximum": 9}}}
        ]});
        let mut schema = original.clone();
        lean_input(&mut schema);
        assert_eq!(schema, original);
    }

    #[test]
    fn described_constants_are_an_enum_described_in_one_line() {
        let mut schema = json!({"description": "What to wait for.", "oneOf": [
            {"const": "appears", "type": "string", "description": "It is there."},
            {"const": "stable", "type": "string", "description": "Nothing changes."}
        ]});
        lean_input(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "string", "enum": ["appears", "stable"],
                   "description": "What to wait for. appears: It is there. stable: Nothing changes."})
        );
    }

    #[test]
    fn a_union_of_other_shapes_is_left_alone() {
        let original = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
        let mut schema = original.clone();
        lean_input(&mut schema);
        assert_eq!(schema, original);
    }

    #[test]
    fn an_answer_is_declared_one_level_deep() {
        let answer = json!({"type": "object", "description": "An answer.",
            "properties": {
                "window": {"type": ["object", "null"], "description": "The window.",
                           "properties": {"id": {"type": "string"}}, "required": ["id"]},
                "how": {"oneOf": [{"const": "exact", "type": "string"}]},
                "details": {"description": "Anything."}
            },
            "required": ["window"]});
        assert_eq!(
            declared(&answer, 1),
            json!({"type": "object", "properties": {
                "window": {"type": ["object", "null"]},
                "how": {"type": "string"},
                "details": {}
            }, "required": ["window"]})
        );
    }

    #[test]
    fn the_error_answer_declares_its_fields() {
        let lean = lean_output(&[]);
        let error = &lean["anyOf"][0]["properties"]["error"];
        assert_eq!(lean["anyOf"][0]["required"], json!(["error"]));
        for field in ["code", "message", "retryable", "suggestion"] {
            assert!(error["properties"][field]["type"].is_string(), "{field}");
        }
    }
}
