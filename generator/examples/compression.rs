//! Compression study: what each way of storing solved values costs, on
//! every Russian slice up to N pieces solved in memory (docs/COMPRESSION.md).
//!
//!     cargo run --release --example compression -- [pieces] [rules]
//!
//! Each line: total bytes (compressed blocks plus 20 bytes of block index
//! each), positions per byte, and positions per byte by piece count.
//! "dc": capture positions (and, in `.dtc`, draws) are "don't care" and
//! repeat the entry before them.
use std::time::Instant;

use damka::layout::{EntryLayout, EntryOrder};
use damka::movegen::has_capture;
use damka::resolve::{is_settled_threat, threat_result, Resolution};
use damka::{Position, RuleSet, Value, Variant, Wdl};
use damka_generator::driver::solve_in_memory;
use damka_generator::solver::{Metric, Options};
use rayon::prelude::*;

/// Bytes of `data` compressed by `f` in blocks of `per` entries.
fn blocks<T: Sync>(data: &[T], per: usize, f: impl Fn(&[T]) -> Vec<u8> + Sync) -> usize {
    data.par_chunks(per).map(|c| f(c).len() + 20).sum()
}

/// Bytes of `data` in blocks of `per` entries coded by `code`, each
/// compressed with one zstd dictionary trained on the slice's blocks, the
/// dictionary counted once. Without enough blocks to train on, plain zstd.
fn with_dictionary(data: &[u8], per: usize, code: impl Fn(&[u8]) -> Vec<u8> + Sync) -> usize {
    let coded: Vec<Vec<u8>> = data.par_chunks(per).map(&code).collect();
    let plain = coded.iter().map(|c| zstd::bulk::compress(c, 9).unwrap().len() + 20).sum::<usize>();
    if coded.len() < 8 {
        return plain;
    }
    let Ok(dict) = zstd::dict::from_samples(&coded, (plain / 10).clamp(1024, 16384)) else { return plain };
    let with: usize = coded
        .par_iter()
        .map(|c| zstd::bulk::Compressor::with_dictionary(9, &dict).unwrap().compress(c).unwrap().len() + 20)
        .sum();
    // A slice keeps its dictionary only where it pays.
    plain.min(with + dict.len())
}

fn base5(c: &[u8]) -> Vec<u8> {
    c.chunks(3).map(|c| c.iter().rev().fold(0u8, |a, &x| a * 5 + x)).collect()
}

fn rle(c: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let mut j = i;
        while j < c.len() && c[j] == c[i] {
            j += 1;
        }
        let mut n = (j - i) as u64;
        out.push(c[i]);
        loop {
            let b = (n & 127) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                break;
            }
            out.push(b | 128);
        }
        i = j;
    }
    out
}

fn fill<T: Copy>(v: &mut [T], dc: &[bool]) {
    let mut last = None;
    for i in 0..v.len() {
        if dc[i] {
            if let Some(l) = last {
                v[i] = l;
            }
        } else {
            last = Some(v[i]);
        }
    }
    // leading don't-cares take the first real value
    if let Some(first) = (0..v.len()).find(|&i| !dc[i]) {
        for i in 0..first {
            v[i] = v[first];
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pieces: u8 = args.get(1).map_or(5, |s| s.parse().unwrap());
    let rules = args.get(2).map_or("russian", |s| s.as_str());
    let rules = std::sync::Arc::new(RuleSet::preset(rules).unwrap());
    let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules) };
    let t = Instant::now();
    let known = solve_in_memory(&opts, pieces);
    eprintln!("solved in {:.1}s", t.elapsed().as_secs_f64());
    let mut mats: Vec<_> = known.keys().copied().collect();
    mats.sort_by_key(|m| (m.pieces(), *m));
    let names = [
        "wdl v2 (base5 z9 16K)",
        "wdl dc base5 z9 16K",
        "wdl dc base5 z9 64K",
        "wdl dc base5 z19 16K",
        "wdl dc bytes z9 16K",
        "wdl dc rle z9 16K",
        "wdl dc rle z9 64K",
        "wdl dc base5 z9 16K transposed",
        "dtc v2 (u16 z3 8K)",
        "dtc dc dist z3 8K",
        "dtc dc dist z9 8K",
        "dtc dc dist z9 32K",
        "dtc dc dist z19 32K",
        "dtc dc dist rle z9 32K",
        "wdl dc base5 z9 16K, slice dictionary",
        "wdl dc base5 z9 4K, slice dictionary",
        "dtc dc dist z9 8K, slice dictionary",
        "wdl dc+threat base5 z9 16K",
        "wdl dc+threat base5 z9 32K",
        "wdl dc+inescapable base5 z9 16K",
        "wdl dc+inescapable base5 z9 32K",
        "wdl dc base5 z9 32K",
        "wdl dc+settled threat base5 z9 16K",
        "wdl dc+settled threat base5 z9 32K",
        "dtc dc+settled dist z9 8K",
        "dtc dc+settled dist z9 16K",
    ];
    // Format 6: the settled-threat codings of both files with the entries
    // in each order of the index's parts (z9, 16K / 8K), and per slice the
    // order that compresses best.
    let orders: Vec<EntryOrder> = EntryOrder::all().collect();
    let mut by_order = vec![[[0usize; 8]; 2]; orders.len() + 1];
    let mut tot = vec![[0usize; 8]; names.len()];
    let mut positions = [0u64; 8];
    let mut captures = [0u64; 8];
    let (mut exceptions, mut settled_quiet, mut value_exceptions) = ([0u64; 8], [0u64; 8], [0u64; 8]);
    for m in &mats {
        let s = &known[m];
        let n = s.values.len();
        let p = m.pieces() as usize;
        positions[p] += n as u64;
        let dc: Vec<bool> = (0..n as u64).into_par_iter().map(|i| has_capture(&s.index.position(i), Variant::Russian)).collect();
        captures[p] += dc.iter().filter(|&&d| d).count() as u64;
        let codes: Vec<u8> = s.values.iter().map(|&v| (v & 7) as u8).collect();
        // Also "don't care": quiet positions whose side not to move could
        // capture (a probe would search them one ply deep).
        let threat: Vec<bool> = (0..n as u64)
            .into_par_iter()
            .map(|i| {
                let mut setup = s.index.position(i).setup();
                setup.turn = setup.turn.map(|c| c.opponent());
                dc[i as usize] || Position::from_setup(&setup).is_ok_and(|p| has_capture(&p, Variant::Russian))
            })
            .collect();
        let mut tcodes = codes.clone();
        fill(&mut tcodes, &threat);
        // Exact under move-limit rules too: threats that every move leaves
        // standing (the reply is a capture, which resets the counters), and
        // positions without a move.
        let inescapable: Vec<bool> = (0..n as u64)
            .into_par_iter()
            .map(|i| {
                if dc[i as usize] {
                    return true;
                }
                let pos = s.index.position(i);
                let moves = damka::movegen::legal_moves(&pos, Variant::Russian);
                (moves.is_empty() || threat[i as usize])
                    && moves.iter().all(|m| has_capture(&pos.play(m), Variant::Russian))
            })
            .collect();
        // Settled threats (format 4): a probe resolves them one ply deep
        // without meeting another don't-care quiet position.
        let settled: Vec<bool> = (0..n as u64)
            .into_par_iter()
            .map_init(Vec::new, |moves, i| dc[i as usize] || is_settled_threat(&s.index.position(i), Variant::Russian, Resolution::FULL, moves))
            .collect();
        // Settled threats whose one-ply resolution from their successors'
        // stored (fresh-counter) results is not their own result: under
        // move-limit rules the move there already counts.
        let wrong = (0..n as u64)
            .into_par_iter()
            .filter(|&i| settled[i as usize] && !dc[i as usize])
            .filter(|&i| {
                let pos = s.index.position(i);
                let moves = damka::movegen::legal_moves(&pos, Variant::Russian);
                let best = threat_result(&pos, Variant::Russian, &moves, |after| {
                    let after = damka::resolve::white_to_move(after);
                    let there = &known[&damka::Material::of(&after)];
                    Ok::<_, ()>(Value::unpack(there.values[there.index.index_unchecked(&after) as usize]).unwrap().wdl)
                });
                best != Ok(Value::unpack(s.values[i as usize]).unwrap().wdl)
            })
            .count();
        exceptions[p] += wrong as u64;
        // Settled threats whose one-ply value (result and distance) from
        // their successors' fresh-counter values is not their own.
        let value_wrong: Vec<bool> = (0..n as u64)
            .into_par_iter()
            .map(|i| {
                if !settled[i as usize] || dc[i as usize] {
                    return false;
                }
                let pos = s.index.position(i);
                let moves = damka::movegen::legal_moves(&pos, Variant::Russian);
                let best = moves
                    .iter()
                    .map(|m| {
                        let after = pos.play(m);
                        let converts = pos.kings(pos.turn()).count() != after.kings(pos.turn()).count();
                        let w = damka::resolve::white_to_move(&after);
                        let there = &known[&damka::Material::of(&w)];
                        Value::unpack(there.values[there.index.index_unchecked(&w) as usize]).unwrap().back_one_ply(converts)
                    })
                    .max_by_key(|v| damka::value::value_order(*v))
                    .unwrap_or(Value::new(Wdl::Loss, 1));
                best != Value::unpack(s.values[i as usize]).unwrap()
            })
            .collect();
        value_exceptions[p] += value_wrong.iter().filter(|&&w| w).count() as u64;
        settled_quiet[p] += settled.iter().zip(&dc).filter(|(s, d)| **s && !**d).count() as u64;
        let mut scodes = codes.clone();
        fill(&mut scodes, &settled);
        let mut icodes = codes.clone();
        fill(&mut icodes, &inescapable);
        let mut dcodes = codes.clone();
        fill(&mut dcodes, &dc);
        // transposed: opponent kings slowest within a configuration
        let k = s.index.kings_per_config() as usize;
        let mat = s.index.material();
        let free = 32 - mat.own_men as u64 - mat.opp_men as u64;
        let opp = damka::index::binomial((free - mat.own_kings as u64) as u32, mat.opp_kings as u32) as usize;
        let own = k / opp;
        let mut tr = vec![0u8; n];
        for c in 0..n / k {
            for a in 0..own {
                for b in 0..opp {
                    tr[c * k + b * own + a] = codes[c * k + a * opp + b];
                }
            }
        }
        let mut trdc = vec![false; n];
        for c in 0..n / k {
            for a in 0..own {
                for b in 0..opp {
                    trdc[c * k + b * own + a] = dc[c * k + a * opp + b];
                }
            }
        }
        fill(&mut tr, &trdc);
        let dist_needed: Vec<bool> = (0..n).map(|i| dc[i] || Value::unpack(s.values[i]).unwrap().wdl == Wdl::Draw).collect();
        let maxd = s.values.iter().map(|&v| v >> 3).max().unwrap_or(0);
        let mut dist: Vec<u16> = s.values.iter().map(|&v| v >> 3).collect();
        fill(&mut dist, &dist_needed);
        let settled_dist_dc: Vec<bool> = (0..n).map(|i| dist_needed[i] || (settled[i] && !value_wrong[i])).collect();
        let sdist_raw: Vec<u16> = s.values.iter().map(|&v| v >> 3).collect();
        let wide_codes: Vec<u16> = codes.iter().map(|&c| c as u16).collect();
        let mut sdist = sdist_raw.clone();
        fill(&mut sdist, &settled_dist_dc);
        let sbytes: Vec<u8> = if maxd < 256 { sdist.iter().map(|&d| d as u8).collect() } else { sdist.iter().flat_map(|d| d.to_le_bytes()).collect() };
        let dbytes: Vec<u8> = if maxd < 256 { dist.iter().map(|&d| d as u8).collect() } else { dist.iter().flat_map(|d| d.to_le_bytes()).collect() };
        let w = if maxd < 256 { 1 } else { 2 };
        let z = |l: i32| move |c: &[u8]| zstd::bulk::compress(c, l).unwrap();
        let results = [
            blocks(&codes, 16384, |c| z(9)(&base5(c))),
            blocks(&dcodes, 16384, |c| z(9)(&base5(c))),
            blocks(&dcodes, 65536, |c| z(9)(&base5(c))),
            blocks(&dcodes, 16384, |c| z(19)(&base5(c))),
            blocks(&dcodes, 16384, z(9)),
            blocks(&dcodes, 16384, |c| z(9)(&rle(c))),
            blocks(&dcodes, 65536, |c| z(9)(&rle(c))),
            blocks(&tr, 16384, |c| z(9)(&base5(c))),
            blocks(&s.values, 8192, |c| z(3)(&c.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())),
            blocks(&dbytes, 8192 * w, z(3)),
            blocks(&dbytes, 8192 * w, z(9)),
            blocks(&dbytes, 32768 * w, z(9)),
            blocks(&dbytes, 32768 * w, z(19)),
            blocks(&dbytes, 32768 * w, |c| z(9)(&rle(c))),
            with_dictionary(&dcodes, 16384, base5),
            with_dictionary(&dcodes, 4096, base5),
            with_dictionary(&dbytes, 8192 * w, |c| c.to_vec()),
            blocks(&tcodes, 16384, |c| z(9)(&base5(c))),
            blocks(&tcodes, 32768, |c| z(9)(&base5(c))),
            blocks(&icodes, 16384, |c| z(9)(&base5(c))),
            blocks(&icodes, 32768, |c| z(9)(&base5(c))),
            blocks(&dcodes, 32768, |c| z(9)(&base5(c))),
            blocks(&scodes, 16384, |c| z(9)(&base5(c))),
            blocks(&scodes, 32768, |c| z(9)(&base5(c))),
            blocks(&sbytes, 8192 * w, z(9)),
            blocks(&sbytes, 16384 * w, z(9)),
        ];
        for (i, b) in results.iter().enumerate() {
            tot[i][p] += b;
        }
        for (file, (entries, dont_care, per)) in [(&wide_codes, &settled, 16384), (&sdist_raw, &settled_dist_dc, 8192)].into_iter().enumerate() {
            let sizes: Vec<usize> = orders
                .iter()
                .map(|&order| {
                    let layout = EntryLayout::new(&s.index, order);
                    let slots = 0..n as u64;
                    let mut e: Vec<u16> = slots.clone().map(|j| entries[layout.index(j) as usize]).collect();
                    let dc: Vec<bool> = slots.map(|j| dont_care[layout.index(j) as usize]).collect();
                    fill(&mut e, &dc);
                    match file {
                        0 => blocks(&e.iter().map(|&c| c as u8).collect::<Vec<u8>>(), per, |c| z(9)(&base5(c))),
                        _ if maxd < 256 => blocks(&e.iter().map(|&d| d as u8).collect::<Vec<u8>>(), per, z(9)),
                        _ => blocks(&e.iter().flat_map(|d| d.to_le_bytes()).collect::<Vec<u8>>(), 2 * per, z(9)),
                    }
                })
                .collect();
            for (o, b) in sizes.iter().enumerate() {
                by_order[o][file][p] += b;
            }
            by_order[orders.len()][file][p] += sizes.iter().min().unwrap();
        }
    }
    let all: u64 = positions.iter().sum();
    println!("positions by pieces {:?}; capture share {:?}", &positions[2..=pieces as usize],
        (2..=pieces as usize).map(|p| format!("{:.1}%", 100.0 * captures[p] as f64 / positions[p] as f64)).collect::<Vec<_>>());
    println!("settled threats (quiet) {:?}; resolved wrongly one ply deep {:?}", &settled_quiet[2..=pieces as usize], &exceptions[2..=pieces as usize]);
    println!("settled threats whose one-ply value is wrong {:?}", &value_exceptions[2..=pieces as usize]);
    let line = |name: &str, tot: &[usize; 8]| {
        let sum: usize = tot.iter().sum();
        let per: Vec<String> = (2..=pieces as usize).map(|p| format!("{}p {:.1}", p, positions[p] as f64 / tot[p].max(1) as f64)).collect();
        println!("{name:34} {sum:>11} B  {:>7.1} pos/B  [{}]", all as f64 / sum as f64, per.join(", "));
    };
    for (i, name) in names.iter().enumerate() {
        line(name, &tot[i]);
    }
    for (file, name) in ["wdl dc+settled base5 z9 16K", "dtc dc+settled dist z9 8K"].iter().enumerate() {
        for (o, order) in orders.iter().enumerate() {
            line(&format!("{name}, order {}", order.name()), &by_order[o][file]);
        }
        line(&format!("{name}, best order per slice"), &by_order[orders.len()][file]);
    }
}
