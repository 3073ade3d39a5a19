//! `damka info`: which variants, rule sets and slices a directory holds,
//! with their sizes. Reads only the file names and headers.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::TablesArgs;
use crate::catalog::misnamed;
use crate::journal::is_journal_name;
use damka::format::{read_header, Kind, TableSlice};
use damka::layout::EntryOrder;
use damka::resolve::Resolution;
use damka::game::Game;
use serde_json::json;

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    tables: TablesArgs,
    /// Print JSON (keys: dir, sets, problems, in_work).
    #[arg(long)]
    json: bool,
}

/// The two files of one slice, as far as they are there.
#[derive(Default)]
struct Slice {
    positions: u64,
    wdl_bytes: Option<u64>,
    dtc_bytes: Option<u64>,
    /// The order of each file's entries (docs/FORMAT.md, Entry order).
    wdl_order: Option<EntryOrder>,
    dtc_order: Option<EntryOrder>,
    /// What the files leave "don't care" (the `.wdl` file's header says).
    resolution: Option<Resolution>,
}

impl Slice {
    /// The entry orders of both files, as the listing prints them.
    fn orders(&self) -> String {
        let name = |o: Option<EntryOrder>| o.map_or("-", EntryOrder::name);
        let left = self.resolution.map_or("-".to_string(), |r| r.to_string());
        format!("{} {}  {left}", name(self.wdl_order), name(self.dtc_order))
    }
}

/// Tables of one variant built with one rule set.
type SetKey = (Game, String, u64);

struct Listing {
    sets: BTreeMap<SetKey, BTreeMap<(u8, TableSlice), Slice>>,
    /// Table files that are missing or cannot be described, with the
    /// reason, by file name.
    problems: Vec<(String, String)>,
    /// Slice pairs an interrupted build left a journal of: the next
    /// `damka generate` resumes them.
    in_work: Vec<String>,
}

fn scan(dir: &Path, only: Option<Game>) -> Result<Listing> {
    let mut listing = Listing { sets: BTreeMap::new(), problems: Vec::new(), in_work: Vec::new() };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pair) = file_name.strip_suffix(".journal").filter(|_| is_journal_name(&file_name)) {
            listing.in_work.push(pair.to_string());
            continue;
        }
        let Some((name, kind)) = TableSlice::parse_file_name(&file_name) else { continue };
        if only.is_some_and(|g| g != name.game()) {
            continue;
        }
        let header = match read_header(&entry.path()) {
            Ok(h) => h,
            Err(e) => {
                listing.problems.push((file_name, format!("unreadable header: {e:#}")));
                continue;
            }
        };
        if let Some(described) = misnamed(&header, &file_name) {
            listing.problems.push((file_name, format!("the header describes {described}")));
            continue;
        }
        let bytes = entry.metadata().with_context(|| format!("cannot stat {file_name}"))?.len();
        let set = listing.sets.entry((name.game(), header.rules_name.clone(), header.rules_hash)).or_default();
        let slice = set.entry((name.pieces(), name)).or_default();
        slice.positions = header.positions;
        match kind {
            Kind::Wdl => {
                (slice.wdl_bytes, slice.wdl_order) = (Some(bytes), Some(header.order));
                slice.resolution = Some(header.resolution);
            }
            Kind::Distance => (slice.dtc_bytes, slice.dtc_order) = (Some(bytes), Some(header.order)),
        }
    }
    // A slice needs both files: engines probe the `.wdl`, distances and
    // `damka verify` need the `.dtc`. A file already reported is not
    // missing.
    let mut missing = Vec::new();
    for slices in listing.sets.values() {
        for (&(_, slice), s) in slices {
            for (kind, bytes) in [(Kind::Wdl, s.wdl_bytes), (Kind::Distance, s.dtc_bytes)] {
                let file = slice.file_name(kind);
                if bytes.is_none() && !listing.problems.iter().any(|(f, _)| *f == file) {
                    missing.push((file, "missing".to_string()));
                }
            }
        }
    }
    listing.problems.extend(missing);
    listing.problems.sort();
    Ok(listing)
}

fn per_byte(positions: u64, bytes: Option<u64>) -> Option<f64> {
    bytes.filter(|&b| b > 0).map(|b| positions as f64 / b as f64)
}

pub fn run(args: InfoArgs) -> Result<()> {
    let dir = &args.tables.dir;
    let listing = scan(dir, args.tables.variant)?;
    if args.json {
        print_json(dir, &listing)?;
    } else {
        print_text(dir, args.tables.variant, &listing);
    }
    match listing.problems.len() {
        0 => Ok(()),
        n => bail!("{n} problem(s) with the tables in {}", dir.display()),
    }
}

fn print_json(dir: &Path, listing: &Listing) -> Result<()> {
    let sets: Vec<_> = listing
        .sets
        .iter()
        .map(|((variant, rules, hash), slices)| {
            let slices: Vec<_> = slices
                .iter()
                .map(|((pieces, material), s)| {
                    json!({
                        "material": material.material_name(),
                        "pieces": pieces,
                        "positions": s.positions,
                        "wdl_bytes": s.wdl_bytes,
                        "dtc_bytes": s.dtc_bytes,
                        "wdl_positions_per_byte": per_byte(s.positions, s.wdl_bytes),
                        "dtc_positions_per_byte": per_byte(s.positions, s.dtc_bytes),
                        "wdl_order": s.wdl_order.map(EntryOrder::name),
                        "dtc_order": s.dtc_order.map(EntryOrder::name),
                        "dont_care": s.resolution.map(|r| json!({ "captures": r.captures, "threat_depth": r.threat_depth, "threat_reads": r.threat_reads })),
                    })
                })
                .collect();
            json!({
                "variant": variant.to_string(),
                "rules": { "name": rules, "hash": format!("{hash:016x}") },
                "slices": slices,
            })
        })
        .collect();
    let problems: Vec<_> = listing.problems.iter().map(|(file, why)| json!({ "file": file, "problem": why })).collect();
    let report = json!({ "dir": dir.display().to_string(), "sets": sets, "problems": problems, "in_work": listing.in_work });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

fn print_text(dir: &Path, only: Option<Game>, listing: &Listing) {
    if !listing.in_work.is_empty() {
        println!("in work (a build was interrupted; damka generate resumes it): {}", listing.in_work.join(", "));
    }
    if listing.sets.is_empty() && listing.problems.is_empty() {
        match only {
            Some(variant) => println!("{}: no {variant} tables", dir.display()),
            None => println!("{}: no tables", dir.display()),
        }
        return;
    }
    let bytes = |b: Option<u64>| b.map_or("missing".to_string(), |b| b.to_string());
    let ratio = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1}"));
    for ((variant, rules, hash), slices) in &listing.sets {
        let positions: u64 = slices.values().map(|s| s.positions).sum();
        let wdl: u64 = slices.values().filter_map(|s| s.wdl_bytes).sum();
        let dtc: u64 = slices.values().filter_map(|s| s.dtc_bytes).sum();
        let max = slices.keys().map(|(p, _)| *p).max().unwrap_or(0);
        println!(
            "{variant}, rule set {rules} ({hash:016x}): {} slices up to {max} pieces, {positions} positions",
            slices.len()
        );
        let line = |name: &str, positions: u64, wdl: Option<u64>, dtc: Option<u64>, orders: &str| {
            // What the distances cost against the results.
            let cost = wdl.zip(dtc).filter(|(w, _)| *w > 0).map(|(w, d)| d as f64 / w as f64);
            println!(
                "  {name:<10} {positions:>14} {:>12} {:>9} {:>12} {:>9} {:>8}  {orders}",
                bytes(wdl),
                ratio(per_byte(positions, wdl)),
                bytes(dtc),
                ratio(per_byte(positions, dtc)),
                ratio(cost),
            );
        };
        println!(
            "  {:<10} {:>14} {:>12} {:>9} {:>12} {:>9} {:>8}  entry order, wdl dtc (slowest part first); don't care",
            "slice", "positions", "wdl bytes", "pos/byte", "dtc bytes", "pos/byte", "dtc/wdl"
        );
        for ((_, material), s) in slices {
            line(&material.material_name(), s.positions, s.wdl_bytes, s.dtc_bytes, &s.orders());
        }
        for pieces in 2..=max {
            let of = || slices.iter().filter(move |((p, _), _)| *p == pieces).map(|(_, s)| s);
            let sum = |f: fn(&Slice) -> Option<u64>| of().filter_map(f).sum::<u64>();
            let (wdl, dtc) = (Some(sum(|s| s.wdl_bytes)), Some(sum(|s| s.dtc_bytes)));
            line(&format!("{pieces} pieces"), of().map(|s| s.positions).sum(), wdl, dtc, "");
        }
        line("total", positions, Some(wdl), Some(dtc), "");
    }
    if !listing.problems.is_empty() {
        println!("problems:");
        for (file, why) in &listing.problems {
            println!("  {file}: {why}");
        }
    }
}
