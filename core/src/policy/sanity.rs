//! Is a model's one-line answer worth passing on?
//!
//! Small or badly loaded models answer with junk that looks like an answer: "1000000000…" with
//! confidence 1.0 for "what does the display show?". [`judge`] rejects, from the text alone, an
//! answer that repeats itself, that claims numbers the window does not show, or that shares no
//! word with the window, its title or the question; the caller then answers from extraction
//! and says why. It never rewrites an answer, and it accepts paraphrases that reuse some of the
//! window's words.

use std::collections::HashSet;

/// Why an answer was not passed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Junk {
    /// A character or a short piece repeated over and over.
    Repetition,
    /// A number that a person reads nowhere in the window, its title or the question (a
    /// button's label does not count).
    UnseenNumber,
    /// Several words and not one of them from the window, its title or the question.
    NoOverlap,
}

impl Junk {
    /// The sentence for the answer's `hint`.
    pub fn hint(self) -> &'static str {
        match self {
            Junk::Repetition => {
                "The model's answer repeated itself and was discarded; the summary is the window's own text."
            }
            Junk::UnseenNumber => {
                "The model's answer named a number the window does not show and was discarded; the summary is the window's own text."
            }
            Junk::NoOverlap => {
                "The model's answer had nothing in common with the window and was discarded; the summary is the window's own text."
            }
        }
    }
}

/// Judges `answer` against what the model was shown: `context` (the window's text lines, its
/// title, the question) for words, `readable` (what a person reads: no button labels, plus the
/// title and question) for numbers.
pub fn judge<'a>(
    answer: &str,
    context: impl IntoIterator<Item = &'a str>,
    readable: impl IntoIterator<Item = &'a str>,
) -> Result<(), Junk> {
    if repeats(answer) {
        return Err(Junk::Repetition);
    }
    let seen_words: HashSet<String> = context.into_iter().flat_map(words).collect();
    let seen_numbers: HashSet<String> = readable.into_iter().flat_map(numbers).collect();
    if numbers(answer).any(|n| !seen_numbers.contains(&n)) {
        return Err(Junk::UnseenNumber);
    }
    let content: Vec<String> = words(answer)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    if content.len() >= 3 && !content.iter().any(|w| seen_words.contains(w)) {
        return Err(Junk::NoOverlap);
    }
    Ok(())
}

/// A run of one character 12 long, or a piece of 2–8 characters five times in a row.
fn repeats(text: &str) -> bool {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut run = 1;
    for pair in chars.windows(2) {
        run = if pair[0] == pair[1] { run + 1 } else { 1 };
        if run >= 12 {
            return true;
        }
    }
    (2..=8).any(|len| {
        (0..chars.len().saturating_sub(len * 5 - 1)).any(|start| {
            let piece = &chars[start..start + len];
            (1..5).all(|k| &chars[start + k * len..start + (k + 1) * len] == piece)
        })
    })
}

/// Lower-cased words of letters (two or more), for overlap.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
}

/// Digit runs, for numbers the answer claims.
fn numbers(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.trim_start_matches('0').to_owned())
        .map(|n| if n.is_empty() { "0".to_owned() } else { n })
}

/// Words any answer may use without having seen them.
const STOP: &[&str] = &[
    "the",
    "a",
    "an",
    "is",
    "are",
    "was",
    "it",
    "its",
    "this",
    "that",
    "of",
    "to",
    "in",
    "on",
    "and",
    "or",
    "no",
    "not",
    "yes",
    "shows",
    "show",
    "showing",
    "window",
    "screen",
    "display",
    "displays",
    "currently",
    "there",
    "be",
    "has",
    "have",
    "with",
    "for",
    "as",
    "at",
    "by",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_the_try_it_answer_of_160_zeros_is_repetition() {
        let answer = format!("1{}", "0".repeat(159));
        assert_eq!(judge(&answer, ["42"], ["42"]), Err(Junk::Repetition));
        assert_eq!(
            judge("ha ha ha ha ha ha", ["x"], ["x"]),
            Err(Junk::Repetition)
        );
    }

    #[test]
    fn numbers_must_be_on_the_screen() {
        let text = ["1", "7", "=", "7×6", "42", "Calculator"];
        let readable = ["7×6", "42", "Calculator"];
        assert_eq!(judge("The display shows 42.", text, readable), Ok(()));
        assert_eq!(
            judge("The display shows 1337.", text, readable),
            Err(Junk::UnseenNumber)
        );
        assert_eq!(
            judge("It shows 042", text, readable),
            Ok(()),
            "leading zeros"
        );
        assert_eq!(
            judge("1", text, readable),
            Err(Junk::UnseenNumber),
            "regression: try-it's \"1\" (confidence 1.0) for a display showing 42: the 1 key is no evidence"
        );
    }

    #[test]
    fn an_answer_needs_a_word_of_the_window_title_or_question() {
        let context = ["Build finished", "Claude Code", "Is Claude finished?"];
        assert_eq!(judge("Yes, Claude is finished.", context, context), Ok(()));
        assert_eq!(
            judge("Bananas grow quickly everywhere", context, context),
            Err(Junk::NoOverlap)
        );
        assert_eq!(
            judge("Yes.", context, context),
            Ok(()),
            "too short to judge"
        );
    }
}
