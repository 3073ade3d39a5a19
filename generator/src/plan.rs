//! The plan of a build as cluster jobs: each slice pair with its inputs,
//! positions and an estimate of its memory and time, tiny pairs grouped
//! into one job, and a Slurm submission script with one `sbatch` per job
//! and `--dependency=afterok` edges from the pair graph ([`crate::graph`]).
//!
//! Estimates follow the steps a job runs ([`memory::schedule`]): what it
//! reads back, what it keeps in memory, what it solves. Nothing is built;
//! the indexer gives every slice's size.

use std::collections::HashMap;

use damka::{Material, SliceIndex};
use serde::Serialize;

use crate::graph::{self, Action};
use crate::memory::{self, Dropped};

/// Solver speed, positions per second per core and per pass. Measured on
/// this project's machines (2 cores, shared with other builds, so CPU
/// seconds rather than wall): `damka generate --pair P --threads 1`,
/// Russian rules, on the largest five-piece pairs: KMvKKM 18.5 M positions
/// twice in 25.7 s CPU (1.44 M/s), KKvKKM 1.27 M/s, KvKKKM 1.08 M/s,
/// MMvKKM 1.38 M/s, MMvMMM 0.7 M/s (reading back included); the whole
/// five-piece build 291.7 M in 167 s CPU (1.75 M/s). The middle of these.
const SOLVE_PER_CORE_SECOND: f64 = 1.0e6;

/// Reading a finished slice back (decompressing it and resolving its
/// capture positions and settled threats), positions per second per core:
/// the pair job KKMvKMM on one thread reads back its 40 slices, 209 M
/// positions, in 209 s before its first pass (format 7, 2026-12-01; in
/// format 3 MMvMMM read back 4 M positions a second).
const LOAD_PER_CORE_SECOND: f64 = 1.0e6;

/// Restoring a slice from its working copy, writing that copy included
/// (every copy is restored at least once), positions restored per second
/// per core: the 5-piece build within `--memory 192M` on one thread
/// restored 38 slices, 34.5 M positions, in 0.6 s of writing and
/// restoring (2026-12-01).
const RESTORE_PER_CORE_SECOND: f64 = 50.0e6;

/// Jobs are grouped until their estimate reaches this many core-seconds:
/// a job costs the scheduler and the reading back of its inputs, which
/// tiny pairs do not repay.
pub const GROUP_CORE_SECONDS: f64 = 600.0;

/// One pair of the plan.
#[derive(Clone, Debug, Serialize)]
pub struct PairPlan {
    pub pair: String,
    /// The pairs it reads (its captures and promotions lead there).
    pub inputs: Vec<String>,
    pub positions: u64,
    /// Positions a job of this pair alone reads back from finished slices.
    pub reads_back: u64,
    /// The least memory a job of this pair alone needs, bytes: its inputs
    /// and itself ([`memory::least_memory`]).
    pub memory_bytes: u64,
    /// Estimated time of a job of this pair alone, core-seconds.
    pub core_seconds: f64,
}

/// One cluster job: pairs built one after the other in one process.
#[derive(Clone, Debug, Serialize)]
pub struct JobPlan {
    pub name: String,
    pub pairs: Vec<String>,
    /// The jobs (by index into the plan's jobs) it waits for.
    pub after: Vec<usize>,
    pub memory_bytes: u64,
    pub core_seconds: f64,
}

/// The whole plan.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub pieces: u8,
    /// Solving passes per pair: 2 under a rule set, 1 for pure values.
    pub passes: u64,
    pub pairs: Vec<PairPlan>,
    pub jobs: Vec<JobPlan>,
    pub totals: Totals,
    /// What fits in a budget, when one is given (`damka plan --memory`).
    pub budget: Option<BudgetPlan>,
}

/// The plan against a memory budget.
#[derive(Clone, Debug, Serialize)]
pub struct BudgetPlan {
    pub memory_bytes: u64,
    /// The pairs that do not fit, the one needing the most first.
    pub pairs_over: Vec<String>,
    /// A local build of every pair within the budget (`damka generate
    /// --memory`), when every pair fits: its estimated peak, the positions
    /// it reads back from their tables (slices finished before it starts)
    /// and those it restores from working copies (slices dropped to make
    /// room, read again), and its core-hours.
    pub local_build_memory_bytes: Option<u64>,
    pub local_build_reads_back: Option<u64>,
    pub local_build_restores: Option<u64>,
    pub local_build_core_hours: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Totals {
    pub pairs: usize,
    pub slices: usize,
    pub positions: u64,
    pub biggest_pair: String,
    pub biggest_pair_positions: u64,
    /// The largest memory estimate of any job, bytes.
    pub largest_job_memory_bytes: u64,
    /// The estimated peak of a local build of every pair without a budget
    /// (every slice kept until no later pair reads it), bytes, and its
    /// core-hours (it reads nothing back).
    pub local_build_memory_bytes: u64,
    pub local_build_core_hours: f64,
    pub core_hours: f64,
    /// The longest chain of jobs, each waiting for the one before: the
    /// least wall time however many machines, core-hours at one core a job.
    pub critical_path_core_hours: f64,
}

/// What a job costs, following its steps.
struct Estimate {
    /// Peak memory, bytes.
    peak_bytes: u64,
    core_seconds: f64,
    /// Positions read back from their tables, and restored from working
    /// copies.
    reads_back: u64,
    restores: u64,
}

/// What a job solving `targets` within `budget` costs, dropped slices
/// brought back as `dropped` says.
fn estimate(targets: &[Material], passes: u64, budget: Option<u64>, dropped: Dropped) -> Estimate {
    let schedule = memory::schedule(targets, |_| true, budget, dropped).expect("finished pairs are never missing");
    let mut e = Estimate { peak_bytes: schedule.peak_bytes, core_seconds: 0.0, reads_back: 0, restores: 0 };
    for step in &schedule.steps {
        let size = |slices: &[Material]| slices.iter().map(|&s| SliceIndex::new(s).size()).sum::<u64>();
        match &step.action {
            Action::Load(slices) => {
                e.core_seconds += size(slices) as f64 / LOAD_PER_CORE_SECOND;
                e.reads_back += size(slices);
            }
            Action::Restore(slices) => {
                e.core_seconds += size(slices) as f64 / RESTORE_PER_CORE_SECOND;
                e.restores += size(slices);
            }
            Action::Solve => e.core_seconds += graph::pair_size(step.pair) as f64 * passes as f64 / SOLVE_PER_CORE_SECOND,
        }
    }
    e
}

/// Plans the pairs of up to `pieces` pieces, solved in `passes` passes;
/// jobs take consecutive pairs of the order until their estimate reaches
/// `group_core_seconds` (0: one job per pair), each within `budget` bytes
/// if one is given.
pub fn plan(pieces: u8, passes: u64, group_core_seconds: f64, budget: Option<u64>) -> Plan {
    let order = graph::pairs_in_order(pieces);
    let pairs: Vec<PairPlan> = order
        .iter()
        .map(|&p| {
            let Estimate { core_seconds, reads_back, .. } = estimate(&[p], passes, None, Dropped::ReadBack);
            let memory_bytes = memory::least_memory(p);
            PairPlan {
                pair: p.to_string(),
                inputs: graph::inputs(p).iter().map(|m| m.to_string()).collect(),
                positions: graph::pair_size(p),
                reads_back,
                memory_bytes,
                core_seconds,
            }
        })
        .collect();
    // Consecutive pairs, so that every job comes after the jobs it needs.
    let mut groups: Vec<Vec<Material>> = Vec::new();
    let mut group_seconds = f64::INFINITY;
    for (&p, plan) in order.iter().zip(&pairs) {
        if group_seconds + plan.core_seconds > group_core_seconds {
            groups.push(Vec::new());
            group_seconds = 0.0;
        }
        groups.last_mut().expect("a group").push(p);
        group_seconds += plan.core_seconds;
    }
    let job_of: HashMap<Material, usize> =
        groups.iter().enumerate().flat_map(|(j, g)| g.iter().map(move |&p| (p, j))).collect();
    let jobs: Vec<JobPlan> = groups
        .iter()
        .enumerate()
        .map(|(j, group)| {
            let mut after: Vec<usize> =
                group.iter().flat_map(|&p| graph::inputs(p)).map(|i| job_of[&i]).filter(|&i| i != j).collect();
            after.sort();
            after.dedup();
            let Estimate { peak_bytes: memory_bytes, core_seconds, .. } = estimate(group, passes, budget, Dropped::ReadBack);
            let name = match group.as_slice() {
                [one] => one.to_string(),
                [first, .., last] => format!("{first}..{last}"),
                [] => unreachable!("groups are never empty"),
            };
            JobPlan { name, pairs: group.iter().map(|m| m.to_string()).collect(), after, memory_bytes, core_seconds }
        })
        .collect();
    // The longest chain: jobs are in order, so one pass forwards.
    let mut chain = vec![0.0f64; jobs.len()];
    for (j, job) in jobs.iter().enumerate() {
        chain[j] = job.core_seconds + job.after.iter().map(|&a| chain[a]).fold(0.0, f64::max);
    }
    let biggest = pairs.iter().max_by_key(|p| p.positions).expect("at least one pair");
    let local = estimate(&order, passes, None, Dropped::Spilled);
    let totals = Totals {
        pairs: pairs.len(),
        slices: order.iter().map(|&p| graph::slices_of(p).len()).sum(),
        positions: pairs.iter().map(|p| p.positions).sum(),
        biggest_pair: biggest.pair.clone(),
        biggest_pair_positions: biggest.positions,
        largest_job_memory_bytes: jobs.iter().map(|j| j.memory_bytes).max().unwrap_or(0),
        local_build_memory_bytes: local.peak_bytes,
        local_build_core_hours: local.core_seconds / 3600.0,
        core_hours: jobs.iter().map(|j| j.core_seconds).sum::<f64>() / 3600.0,
        critical_path_core_hours: chain.iter().copied().fold(0.0, f64::max) / 3600.0,
    };
    let budget = budget.map(|memory_bytes| {
        let mut over: Vec<&PairPlan> = pairs.iter().filter(|p| p.memory_bytes > memory_bytes).collect();
        over.sort_by_key(|p| std::cmp::Reverse(p.memory_bytes));
        let within = over.is_empty().then(|| estimate(&order, passes, Some(memory_bytes), Dropped::Spilled));
        BudgetPlan {
            memory_bytes,
            pairs_over: over.iter().map(|p| p.pair.clone()).collect(),
            local_build_memory_bytes: within.as_ref().map(|l| l.peak_bytes),
            local_build_reads_back: within.as_ref().map(|l| l.reads_back),
            local_build_restores: within.as_ref().map(|l| l.restores),
            local_build_core_hours: within.as_ref().map(|l| l.core_seconds / 3600.0),
        }
    });
    Plan { pieces, passes, pairs, jobs, totals, budget }
}

/// Bytes as MiB, GiB or TiB, for people.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    let units = [("TiB", 40), ("GiB", 30), ("MiB", 20)];
    for (unit, shift) in units {
        if b >= (1u64 << shift) as f64 {
            return format!("{:.1} {unit}", b / (1u64 << shift) as f64);
        }
    }
    format!("{:.1} MiB", b / (1u64 << 20) as f64)
}

/// Core-seconds as seconds, minutes or hours, for people.
pub fn human_seconds(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

impl Plan {
    /// The plan as text: one line per pair, then the jobs and the totals.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "{:<14} {:>15} {:>15} {:>11} {:>9}  inputs\n",
            "pair", "positions", "reads back", "memory", "core time"
        ));
        for p in &self.pairs {
            out.push_str(&format!(
                "{:<14} {:>15} {:>15} {:>11} {:>9}  {}\n",
                p.pair,
                p.positions,
                p.reads_back,
                human_bytes(p.memory_bytes),
                human_seconds(p.core_seconds),
                if p.inputs.is_empty() { "-".to_string() } else { p.inputs.join(" ") }
            ));
        }
        let t = &self.totals;
        out.push_str(&format!(
            "\n{} pairs ({} slices), {} positions, {} pass(es) each; biggest pair {} ({} positions)\n\
             {} jobs (pairs under {} core-seconds grouped); largest job memory {}; {:.1} core-hours in all, \
             {:.1} along the longest chain of jobs; a local build of every pair peaks at {} without a budget \
             and takes {:.1} core-hours\n\
             (time at one core per job, from rates measured on a 2-core machine; a pair's memory is the least a job of \
             it alone needs)\n",
            t.pairs,
            t.slices,
            t.positions,
            self.passes,
            t.biggest_pair,
            t.biggest_pair_positions,
            self.jobs.len(),
            GROUP_CORE_SECONDS,
            human_bytes(t.largest_job_memory_bytes),
            t.core_hours,
            t.critical_path_core_hours,
            human_bytes(t.local_build_memory_bytes),
            t.local_build_core_hours,
        ));
        if let Some(b) = &self.budget {
            let budget = human_bytes(b.memory_bytes);
            match (b.local_build_memory_bytes, b.local_build_reads_back, b.local_build_restores, b.local_build_core_hours) {
                (Some(peak), Some(read), Some(restored), Some(hours)) => out.push_str(&format!(
                    "every pair fits in {budget}: a local build within it peaks at {}, reading back {read} positions \
                     and restoring {restored} from working copies, in {hours:.1} core-hours\n",
                    human_bytes(peak)
                )),
                _ => {
                    let need: HashMap<&str, u64> = self.pairs.iter().map(|p| (p.pair.as_str(), p.memory_bytes)).collect();
                    let over: Vec<String> =
                        b.pairs_over.iter().map(|p| format!("{p} ({})", human_bytes(need[p.as_str()]))).collect();
                    out.push_str(&format!(
                        "{} of {} pairs do not fit in {budget}: {}\n",
                        over.len(),
                        self.pairs.len(),
                        over.join(", ")
                    ));
                }
            }
        }
        out
    }
}

/// What every job of a Slurm script runs, and with what.
pub struct Slurm {
    /// The damka binary the jobs run (the script's `DAMKA` overrides it).
    pub damka: String,
    /// The arguments every job passes to `damka generate` (variant, rules,
    /// pieces, directory), already shell-quoted.
    pub generate_args: String,
    /// Cores per job (`--cpus-per-task`, and the solver's `--threads`).
    pub cpus: u32,
    /// Where the jobs' logs go.
    pub logs: String,
}

/// The memory a job asks for, MiB: the estimate with a quarter more (the
/// rates come from one machine) and room for the shell around it.
pub fn request_mib(memory_bytes: u64) -> u64 {
    (memory_bytes as f64 * 1.25 / (1u64 << 20) as f64).ceil() as u64 + 64
}

/// `text` quoted for a POSIX shell.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

impl Plan {
    /// A bash script that submits every job with `sbatch`, each after the
    /// jobs it needs (`--dependency=afterok`), and prints each job's name
    /// and id. Re-running it after a failure resubmits everything: jobs
    /// whose pairs are finished end at once.
    pub fn slurm_script(&self, slurm: &Slurm) -> String {
        let mut out = format!(
            r#"#!/usr/bin/env bash
# Written by damka plan: {jobs} Slurm jobs for the {pairs} slice pairs up to {pieces} pieces.
# Each job runs `damka generate --pair ...` into the shared directory, after
# the jobs whose pairs it reads (afterok). Submit from a node that sees the
# directory and the damka binary at the same paths as the compute nodes.
# If a job fails, its dependants are cancelled (with DependencyParameters=
# kill_invalid_depend) or left pending: fix the cause, `scancel` what is
# left and run this script again; finished pairs are not built twice.
# Extra sbatch options (account, partition, time limit): SBATCH_* variables.
set -euo pipefail
DAMKA=${{DAMKA:-{damka}}}
LOGS={logs}
CPUS={cpus}
# What every job passes to damka generate besides its pairs.
ARGS={args}
mkdir -p "$LOGS"

# submit NAME MEMORY_MIB AFTER PAIRS...: sets ID to the new job's id.
submit() {{
    local name=$1 mem=$2 after=$3
    shift 3
    local dependency=()
    if [ -n "$after" ]; then dependency=(--dependency="afterok$after" --kill-on-invalid-dep=yes); fi
    local pairs=() p
    for p in "$@"; do pairs+=(--pair "$p"); done
    local command
    # The job keeps to four fifths of what it asks Slurm for (the rest is
    # the room the request adds to the estimate).
    command="exec $(printf '%q' "$DAMKA") generate --quiet --threads $CPUS --memory $((mem * 4 / 5))M $ARGS ${{pairs[*]}}"
    ID=$(sbatch --parsable --job-name="damka-$name" --mem="${{mem}}M" --cpus-per-task="$CPUS"         --output="$LOGS/damka-$name-%j.out" "${{dependency[@]}}" --wrap="$command")
    ID=${{ID%%;*}}
    echo "$name $ID"
}}

"#,
            jobs = self.jobs.len(),
            pairs = self.pairs.len(),
            pieces = self.pieces,
            damka = shell_quote(&slurm.damka),
            logs = shell_quote(&slurm.logs),
            cpus = slurm.cpus,
            args = shell_quote(&slurm.generate_args),
        );
        for (j, job) in self.jobs.iter().enumerate() {
            let after: String = job.after.iter().map(|a| format!(":$J{a}")).collect();
            out.push_str(&format!(
                "submit {} {} \"{after}\" {}; J{j}=$ID\n",
                job.name,
                request_mib(job.memory_bytes),
                job.pairs.join(" ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_wait_only_for_earlier_jobs_and_cover_every_pair_once() {
        for group in [0.0, GROUP_CORE_SECONDS] {
            let plan = plan(5, 2, group, None);
            let mut seen: Vec<&String> = plan.jobs.iter().flat_map(|j| &j.pairs).collect();
            assert_eq!(seen.len(), plan.pairs.len());
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), plan.pairs.len(), "a pair in two jobs");
            for (j, job) in plan.jobs.iter().enumerate() {
                assert!(job.after.iter().all(|&a| a < j), "{}", job.name);
            }
            if group == 0.0 {
                assert_eq!(plan.jobs.len(), plan.pairs.len());
            }
        }
    }

    #[test]
    fn totals_add_up_from_the_indexer() {
        let plan = plan(4, 1, 0.0, None);
        let all: u64 = Material::all_up_to(4).iter().map(|&m| SliceIndex::new(m).size()).sum();
        assert_eq!(plan.totals.positions, all);
        assert_eq!(plan.totals.slices, Material::all_up_to(4).len());
    }

    #[test]
    fn a_local_build_costs_less_than_the_jobs_that_read_their_inputs_back() {
        let plan = plan(5, 2, 0.0, None);
        let solving = plan.totals.positions as f64 * 2.0 / SOLVE_PER_CORE_SECOND / 3600.0;
        // It reads nothing back: solving is all it costs.
        assert!((plan.totals.local_build_core_hours - solving).abs() < 1e-9, "{plan:?}");
        let read_back: u64 = plan.pairs.iter().map(|p| p.reads_back).sum();
        let jobs = solving + read_back as f64 / LOAD_PER_CORE_SECOND / 3600.0;
        assert!(read_back > 0 && (plan.totals.core_hours - jobs).abs() < 1e-9, "{} against {jobs}", plan.totals.core_hours);
        assert!(plan.totals.local_build_core_hours < plan.totals.core_hours);
        // Within the least budget, dropped slices come back from working
        // copies: some time, far less than reading them back.
        let least = graph::pairs_in_order(5).into_iter().map(memory::least_memory).max().unwrap();
        let tight = super::plan(5, 2, 0.0, Some(least)).budget.expect("a budget was given");
        let (restores, hours) = (tight.local_build_restores.unwrap(), tight.local_build_core_hours.unwrap());
        assert_eq!(tight.local_build_reads_back, Some(0));
        assert!(restores > 0 && hours > solving && hours < solving + restores as f64 / LOAD_PER_CORE_SECOND / 3600.0);
    }
}
