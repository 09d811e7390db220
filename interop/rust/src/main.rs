//! A Rust JCS crate behind the fastjcs canon batch protocol (v1).
//!
//! Usage: `jcspeer serde_jcs|serde_json_canonicalizer`
//!
//! stdin: one base64 document per line; stdout: `ok <base64 canonical bytes>` or `error <text>` per
//! line, in order, flushed after each. A document is read as a serde user would:
//! `serde_json::from_slice::<serde_json::Value>` on the raw bytes (invalid UTF-8 and a BOM are parse
//! errors; numbers become i64/u64/f64 with serde_json's default features), then the crate's `to_vec`.
//! A panic inside a crate is caught and answered as an error.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::panic;

type Canon = fn(&Value) -> Result<Vec<u8>, String>;

fn with_serde_jcs(v: &Value) -> Result<Vec<u8>, String> {
    serde_jcs::to_vec(v).map_err(|e| e.to_string())
}

fn with_serde_json_canonicalizer(v: &Value) -> Result<Vec<u8>, String> {
    serde_json_canonicalizer::to_vec(v).map_err(|e| e.to_string())
}

fn answer(canon: Canon, line: &[u8]) -> String {
    let doc = match STANDARD.decode(line) {
        Ok(doc) => doc,
        Err(e) => return format!("error bad base64: {e}"),
    };
    let run = panic::catch_unwind(|| {
        let value: Value = serde_json::from_slice(&doc).map_err(|e| e.to_string())?;
        canon(&value)
    });
    match run {
        Ok(Ok(out)) => format!("ok {}", STANDARD.encode(out)),
        Ok(Err(e)) => format!("error {}", one_line(&e)),
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("?");
            format!("error panic: {}", one_line(what))
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn main() {
    let canon: Canon = match std::env::args().nth(1).as_deref() {
        Some("serde_jcs") => with_serde_jcs,
        Some("serde_json_canonicalizer") => with_serde_json_canonicalizer,
        _ => {
            eprintln!("usage: jcspeer serde_jcs|serde_json_canonicalizer");
            std::process::exit(2);
        }
    };
    panic::set_hook(Box::new(|_| {})); // a caught panic is reported on stdout, not on stderr
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("jcspeer: {e}");
                std::process::exit(1);
            }
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        let reply = answer(canon, &line);
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            std::process::exit(1);
        }
    }
}
