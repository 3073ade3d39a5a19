//! Cheskers tables: the solver, the build, the verifier and an oracle
//! written apart from the solver. The draughts pipeline is built around
//! men and kings; Cheskers has a short pipeline of its own and shares the
//! file writer, the directory claim, the manifest and the progress bars.

pub mod build;
pub mod naive;
pub mod solver;
pub mod verify;
