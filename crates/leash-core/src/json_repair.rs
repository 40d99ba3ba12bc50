//! Lossless repairs of almost-JSON text, as models and hand-written config files have it:
//! a trailing comma before `}` or `]`, and raw control characters inside strings. Only
//! repairs that keep every character the writer meant; nothing is guessed or completed.

/// The two lossless repairs: drops a comma that stands (after white space) before `}` or
/// `]` outside strings, and escapes a raw control character inside a string (models
/// write real newlines and tabs there; JSON wants `\n`, `\t`). The characters are kept,
/// so the validator still sees, and refuses, a newline in a command.
pub(crate) fn repair(json: &str) -> String {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in json.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                '\n' => {
                    out.push_str("\\n");
                    continue;
                }
                '\t' => {
                    out.push_str("\\t");
                    continue;
                }
                '\r' => {
                    out.push_str("\\r");
                    continue;
                }
                c if (c as u32) < 0x20 => {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                    continue;
                }
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace());
            if matches!(next, Some(b'}') | Some(b']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_commas_go_and_control_characters_in_strings_are_escaped() {
        assert_eq!(repair("{\"a\": [1, 2, ], }"), "{\"a\": [1, 2 ] }");
        assert_eq!(repair("{\"a\": \"x\ny\tz\"}"), "{\"a\": \"x\\ny\\tz\"}");
        assert_eq!(repair("{\"a\": \"1, ]\"}"), "{\"a\": \"1, ]\"}", "inside a string nothing is dropped");
        assert_eq!(repair("{\"a\": \"\\\",\"}"), "{\"a\": \"\\\",\"}", "an escaped quote does not end the string");
    }
}
