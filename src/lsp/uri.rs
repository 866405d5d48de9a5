//! `file:` URIs and paths.

use lsp_types::Uri;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The `file:` URI of an absolute path.
pub fn from_path(p: &Path) -> Option<Uri> {
    let s = p.to_str()?;
    if !s.starts_with('/') {
        return None;
    }
    let mut out = String::from("file://");
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Uri::from_str(&out).ok()
}

/// The path of a `file:` URI (none for other schemes).
pub fn to_path(u: &Uri) -> Option<PathBuf> {
    let s = u.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only the local host is a path here.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(k) if &rest[..k] == "localhost" => &rest[k..],
        _ => return None,
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == b'%' && k + 2 < bytes.len() {
            if let Ok(v) = u8::from_str_radix(&path[k + 1..k + 3], 16) {
                out.push(v);
                k += 3;
                continue;
            }
        }
        out.push(bytes[k]);
        k += 1;
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for p in ["/tmp/a b/ç.loopy", "/x/y-z_1.c", "/100%/#x"] {
            let u = from_path(Path::new(p)).unwrap();
            assert!(u.as_str().starts_with("file:///"), "{}", u.as_str());
            assert_eq!(to_path(&u).unwrap(), PathBuf::from(p));
        }
        assert!(from_path(Path::new("relative")).is_none());
        let u = Uri::from_str("file://localhost/tmp/x%20y").unwrap();
        assert_eq!(to_path(&u).unwrap(), PathBuf::from("/tmp/x y"));
        let u = Uri::from_str("untitled:Untitled-1").unwrap();
        assert!(to_path(&u).is_none());
    }
}
