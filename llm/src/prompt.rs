//! What the model is asked, and the schemas that bound its answers: a summary of one window,
//! and a pick among click candidates. Pure text building, tested without a model.

use serde_json::{json, Value};

/// Longest summary the schema allows (a rambling model still closes its JSON).
pub const SUMMARY_MAX_CHARS: u64 = 160;
/// Most window text sent, characters (the newest text, at the end, is kept).
pub const MAX_TEXT_CHARS: usize = 6000;
/// Tokens a summary may take (200 characters of Hebrew can take 400 tokens in a small model's
/// vocabulary; the schema's grammar ends generation when the JSON closes).
pub const SUMMARY_MAX_TOKENS: u32 = 450;

/// The instructions for a window summary.
pub const SUMMARY_SYSTEM: &str = "You read the text of one desktop window for a coding agent. \
Answer the question in one or two short sentences, using only the window text. \
If the text does not say, answer that it does not say. Never invent facts.";

/// The schema of a summary answer.
pub fn summary_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": { "type": "string", "minLength": 1, "maxLength": SUMMARY_MAX_CHARS },
            "confidence": { "type": "number", "minimum": 0, "maximum": 1 }
        },
        "required": ["summary", "confidence"],
        "additionalProperties": false
    })
}

/// The user message: what code found, the window's text (its end, within
/// [`MAX_TEXT_CHARS`]), then the question (after the text, where small models heed it).
pub fn summary_user(
    window: &str,
    status: &str,
    details: &Value,
    text: &[String],
    question: &str,
) -> String {
    let body = tail_chars(&text.join("\n"), MAX_TEXT_CHARS);
    let details = if details.as_object().is_some_and(|d| !d.is_empty()) {
        format!("Facts found by code: {details}\n")
    } else {
        String::new()
    };
    format!(
        "Window: {window}\nStatus found by code: {status}\n{details}Window text:\n---\n{body}\n---\nQuestion: {question}"
    )
}

/// The last `max` characters of `text`, starting at a line when one starts nearby.
pub fn tail_chars(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(count - max).collect();
    match tail.find('\n') {
        Some(at) if at < 200 => tail[at + 1..].to_owned(),
        _ => tail,
    }
}

/// The instructions for picking a click target.
pub const PICK_SYSTEM: &str = "You pick which on-screen element a user meant. \
Answer with the number of the candidate that means the same as the requested label, \
or 0 when none of them does.";

/// The schema of a pick among `n` candidates (0 = none).
pub fn pick_schema(n: usize) -> Value {
    json!({
        "type": "object",
        "properties": { "choice": { "type": "integer", "minimum": 0, "maximum": n } },
        "required": ["choice"],
        "additionalProperties": false
    })
}

/// The user message of a pick: the label and the numbered candidates ("role \"name\"").
pub fn pick_user(label: &str, candidates: &[String]) -> String {
    let mut out = format!("Requested label: {label:?}\nCandidates:\n");
    for (i, c) in candidates.iter().enumerate() {
        out.push_str(&format!("{}. {c}\n", i + 1));
    }
    out.push_str("Which number?");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_comes_after_the_text_and_long_text_keeps_its_end() {
        let text: Vec<String> = (0..2000).map(|i| format!("line {i}")).collect();
        let user = summary_user("Claude", "working", &json!({"project":"x"}), &text, "Done?");
        assert!(user.ends_with("Question: Done?"));
        assert!(user.contains("line 1999"));
        assert!(!user.contains("line 10\n"));
        assert!(user.contains("Facts found by code: {\"project\":\"x\"}"));
        assert!(user.chars().count() < MAX_TEXT_CHARS + 300);
        assert!(!summary_user("w", "unknown", &json!({}), &[], "q").contains("Facts"));
    }

    #[test]
    fn schemas_bound_every_string_and_number() {
        let s = summary_schema();
        assert_eq!(s["properties"]["summary"]["maxLength"], SUMMARY_MAX_CHARS);
        assert_eq!(pick_schema(3)["properties"]["choice"]["maximum"], 3);
        let user = pick_user(
            "seven",
            &["button \"7\"".into(), "button \"Seven Seas\"".into()],
        );
        assert!(user.contains("1. button \"7\"\n2. button \"Seven Seas\""));
    }

    #[test]
    fn tail_chars_is_safe_on_multibyte_text() {
        let hebrew = "שלום עולם\n".repeat(1000);
        let t = tail_chars(&hebrew, 55);
        assert!(t.chars().count() <= 55 && t.starts_with('ש'));
    }
}
