//! ns per double for crates.io's `ryu` and `zmij` over the little-endian doubles in argv[1],
//! best of argv[2] repetitions, timed like benchmarks/number_bench.c times fjcs_format_double
//! (same loop shape: format, add the length and the last byte to a sink).
//! Prints one line: "ryu <ns> zmij <ns>".
use std::hint::black_box;
use std::time::Instant;

fn time<F: FnMut(f64) -> (usize, u8)>(values: &[f64], mut f: F) -> f64 {
    let mut acc: u64 = 0;
    let t0 = Instant::now();
    for &v in values {
        let (len, last) = f(v);
        acc = acc.wrapping_add(len as u64 + last as u64);
    }
    let dt = t0.elapsed().as_nanos() as f64;
    black_box(acc);
    dt / values.len() as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: {} DOUBLES_FILE [REPEAT]", args[0]);
        std::process::exit(2);
    }
    let repeat: usize = args.get(2).map_or(5, |s| s.parse().expect("REPEAT"));
    let bytes = std::fs::read(&args[1]).expect("read doubles");
    let values: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (mut best_ryu, mut best_zmij) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..repeat {
        let r = time(&values, |v| {
            let mut b = ryu::Buffer::new();
            let s = b.format_finite(black_box(v));
            (s.len(), s.as_bytes()[s.len() - 1])
        });
        let z = time(&values, |v| {
            let mut b = zmij::Buffer::new();
            let s = b.format_finite(black_box(v));
            (s.len(), s.as_bytes()[s.len() - 1])
        });
        best_ryu = best_ryu.min(r);
        best_zmij = best_zmij.min(z);
    }
    println!("ryu {:.2} zmij {:.2}", best_ryu, best_zmij);
}
