//! The damka generator: retrograde solver, table writer, verification,
//! statistics and the `damka` command line.
//!
//! The pipeline, in the order a run goes through it: [`driver`] takes the
//! pairs and their order from [`graph`], [`solver`] solves each slice pair (captures and
//! exits first, then retrograde iteration), [`writer`] compresses and writes
//! the tables, in a directory [`claim`] locks and keeps to one variant and
//! rule set. [`verify`] re-derives every written value independently of
//! the solver; [`stats`] counts what the tables hold; both find the files
//! through [`catalog`]. [`memory`] schedules what a build keeps loaded within its budget
//! (finished slices as [`kept`] results);
//! [`plan`] lays a build out as cluster jobs.

pub mod audit;
pub mod catalog;
pub mod cheskers;
pub mod claim;
pub mod cli;
pub mod counters;
pub mod driver;
pub mod graph;
pub mod journal;
pub mod kept;
pub mod memory;
pub mod naive;
pub mod plan;
pub mod solver;
pub mod spill;
pub mod stats;
pub mod unit;
pub mod verify;
pub mod writer;
