//! Interleaved timing, robust to a noisy host: the two sides of a row alternate in batches of
//! about 2 ms, [`ROUNDS`] times, and the row prints the median of the ratios with their
//! quartiles, so the host's drift cancels in each pair.

use std::time::Instant;

/// Batches timed per side and row.
pub const ROUNDS: usize = 41;

/// Mean time of one call of `f` over `k` calls, in seconds.
pub fn batch(k: usize, f: &mut impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..k {
        f();
    }
    t.elapsed().as_secs_f64() / k as f64
}

/// Prints `name`: the median (and quartiles) of rust-vt's time over prost's.
pub fn row(filter: &str, name: &str, prost: impl FnMut(), vt: impl FnMut()) {
    labelled_row(filter, name, ("prost", "rust-vt/prost"), prost, vt)
}

/// [`row`] with other labels: `(base, ratio)`, as `("prost", "rust-vt/prost")`.
pub fn labelled_row(
    filter: &str,
    name: &str,
    labels: (&str, &str),
    mut prost: impl FnMut(),
    mut vt: impl FnMut(),
) {
    if !name.contains(filter) {
        return;
    }
    let once = batch(1, &mut prost).max(batch(1, &mut vt)).max(1e-9);
    let k = ((2e-3 / once) as usize).clamp(1, 1_000_000);
    let (mut ratios, mut times) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let p = batch(k, &mut prost);
        let v = batch(k, &mut vt);
        ratios.push(v / p);
        times.push(p);
    }
    ratios.sort_by(f64::total_cmp);
    times.sort_by(f64::total_cmp);
    let q = |p: usize| ratios[(ROUNDS - 1) * p / 4];
    println!(
        "{name:<32} {} {:>11.1} ns   {} {:.3}  (quartiles {:.3} {:.3})",
        labels.0,
        times[ROUNDS / 2] * 1e9,
        labels.1,
        q(2),
        q(1),
        q(3)
    );
}

/// Takes the messages of `all` in turn, forever.
pub fn cycle<'a, T>(all: &'a [T]) -> impl FnMut() -> &'a T {
    let mut i = 0;
    move || {
        i += 1;
        if i == all.len() {
            i = 0;
        }
        &all[i]
    }
}
