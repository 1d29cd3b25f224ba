//! A minimal XML tokenizer: just enough XML for the Dresden GameController's
//! traces (open and close tags with attributes, text, CDATA, entities).

use crate::ParseError;

/// An XML event of the tokenizer.
#[derive(Debug)]
pub(super) enum Xml<'a> {
    Open {
        name: &'a str,
        attrs: Vec<(&'a str, String)>,
        empty: bool,
    },
    Close(&'a str),
    Text(String),
}

/// Replaces the five predefined XML entities and numeric character
/// references; anything else after `&` is kept as written.
pub(super) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let code = if let Some(h) = name.strip_prefix("#x").or(name.strip_prefix("#X"))
                    {
                        u32::from_str_radix(h, 16).ok()
                    } else {
                        name.strip_prefix('#').and_then(|d| d.parse().ok())
                    };
                    code.and_then(char::from_u32)
                }
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Splits an XML document into open tags, close tags and text, skipping the
/// prolog, comments and doctype. Just enough XML for the GameController's
/// traces; well-formedness beyond tag nesting is not checked.
pub(super) fn xml_events(src: &str) -> Result<Vec<Xml<'_>>, ParseError> {
    let err = |pos: usize, m: &str| ParseError::new(format!("XML byte {pos}: {m}"));
    let bytes = src.as_bytes();
    let find = |from: usize, pat: &str| src.get(from..).and_then(|s| s.find(pat)).map(|i| from + i);
    let mut events = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] != b'<' {
            let end = find(pos, "<").unwrap_or(bytes.len());
            events.push(Xml::Text(decode_entities(&src[pos..end])));
            pos = end;
            continue;
        }
        let rest = &src[pos..];
        if rest.starts_with("<?") {
            pos = find(pos, "?>").ok_or_else(|| err(pos, "unclosed `<?`"))? + 2;
        } else if rest.starts_with("<!--") {
            pos = find(pos, "-->").ok_or_else(|| err(pos, "unclosed comment"))? + 3;
        } else if rest.starts_with("<![CDATA[") {
            let end = find(pos, "]]>").ok_or_else(|| err(pos, "unclosed CDATA"))?;
            events.push(Xml::Text(src[pos + 9..end].to_string()));
            pos = end + 3;
        } else if rest.starts_with("<!") {
            pos = find(pos, ">").ok_or_else(|| err(pos, "unclosed `<!`"))? + 1;
        } else if rest.starts_with("</") {
            let end = find(pos, ">").ok_or_else(|| err(pos, "unclosed end tag"))?;
            events.push(Xml::Close(src[pos + 2..end].trim()));
            pos = end + 1;
        } else {
            // A start tag: name, then attributes `name="value"` or 'value'.
            let mut p = pos + 1;
            let name_end = |p: usize| {
                let mut q = p;
                while q < bytes.len()
                    && !bytes[q].is_ascii_whitespace()
                    && !matches!(bytes[q], b'>' | b'/' | b'=')
                {
                    q += 1;
                }
                q
            };
            let q = name_end(p);
            let name = &src[p..q];
            if name.is_empty() {
                return Err(err(pos, "tag without a name"));
            }
            p = q;
            let mut attrs = Vec::new();
            let empty = loop {
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                match bytes.get(p) {
                    None => return Err(err(pos, "unclosed start tag")),
                    Some(b'>') => {
                        p += 1;
                        break false;
                    }
                    Some(b'/') if bytes.get(p + 1) == Some(&b'>') => {
                        p += 2;
                        break true;
                    }
                    Some(_) => {}
                }
                let q = name_end(p);
                if q == p {
                    return Err(err(p, "malformed attribute"));
                }
                let attr = &src[p..q];
                p = q;
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                if bytes.get(p) != Some(&b'=') {
                    return Err(err(p, "attribute without `=`"));
                }
                p += 1;
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                let quote = match bytes.get(p) {
                    Some(&q @ (b'"' | b'\'')) => q,
                    _ => return Err(err(p, "attribute value without quotes")),
                };
                let close = find(p + 1, if quote == b'"' { "\"" } else { "'" })
                    .ok_or_else(|| err(p, "unclosed attribute value"))?;
                attrs.push((attr, decode_entities(&src[p + 1..close])));
                p = close + 1;
            };
            events.push(Xml::Open { name, attrs, empty });
            pos = p;
        }
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &amp; &quot;c&apos; &#65;&#x42; &bogus; &"),
            "a <b> & \"c' AB &bogus; &"
        );
    }
}
