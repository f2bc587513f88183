//! `look_at_screen` questions: the length limit, and the hints the predecessor gives for
//! questions a small local model answers badly (groundwork of issue 6).

use crate::error::{Error, ErrorCode};

/// A non-fatal hint about how a question is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// Three or more questions, or a list: ask one thing per call.
    MultiPart,
    /// Mostly non-Latin letters: the model answers English best.
    NotEnglish,
}

impl Hint {
    /// The hint as shown to the agent.
    pub fn text(&self) -> &'static str {
        match self {
            Hint::MultiPart => {
                "Ask one short, focused question per call; go step by step for bigger checks."
            }
            Hint::NotEnglish => {
                "Write the question in English (translate the user's request); answers are better."
            }
        }
    }
}

/// Checks a question: QUESTION_TOO_LONG past `max_chars`, otherwise the hints that apply.
pub fn check(question: &str, max_chars: usize) -> Result<Vec<Hint>, Error> {
    let chars = question.chars().count();
    if question.trim().is_empty() {
        return Err(
            Error::new(ErrorCode::InvalidArgument, "the question is empty")
                .with_suggestion("Ask one short question about the window, in English."),
        );
    }
    if chars > max_chars {
        return Err(Error::new(
            ErrorCode::QuestionTooLong,
            format!("the question has {chars} characters; at most {max_chars} are accepted"),
        )
        .with_suggestion(
            "Ask one short, focused question (split bigger checks into several calls).",
        ));
    }
    let mut hints = Vec::new();
    let questions = question.matches(['?', '？', '؟']).count();
    let listed = question
        .lines()
        .filter(|l| is_list_item(l.trim_start()))
        .count();
    if questions >= 3 || listed >= 2 {
        hints.push(Hint::MultiPart);
    }
    let letters: Vec<char> = question.chars().filter(|c| c.is_alphabetic()).collect();
    let latin = letters
        .iter()
        .filter(|c| c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(*c))
        .count();
    if !letters.is_empty() && latin * 2 < letters.len() {
        hints.push(Hint::NotEnglish);
    }
    Ok(hints)
}

fn is_list_item(line: &str) -> bool {
    let numbered = {
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && matches!(line[digits..].chars().next(), Some('.' | ')'))
    };
    numbered || line.starts_with("- ") || line.starts_with("* ") || line.starts_with("• ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_long_is_an_error_with_the_code() {
        assert_eq!(
            check(&"x".repeat(301), 300).err().map(|e| e.code),
            Some(ErrorCode::QuestionTooLong)
        );
        assert!(check(&"x".repeat(300), 300).is_ok());
        assert_eq!(
            check("  ", 300).err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
    }

    #[test]
    fn multi_part_and_non_latin_questions_get_hints_not_errors() {
        assert_eq!(check("Is Claude finished?", 300).ok(), Some(vec![]));
        assert_eq!(
            check("Done? Tests? Pushed?", 300).ok(),
            Some(vec![Hint::MultiPart])
        );
        assert_eq!(
            check("Check:\n1. status\n2. branch", 300).ok(),
            Some(vec![Hint::MultiPart])
        );
        assert_eq!(
            check("האם קלוד סיים?", 300).ok(),
            Some(vec![Hint::NotEnglish])
        );
        assert_eq!(check("Is the café open?", 300).ok(), Some(vec![]));
    }
}
