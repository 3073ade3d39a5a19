//! Event counts kept per thread: counting writes only a cache line of the
//! counting thread's own, so that threads counting at once do not slow
//! each other down; a reader adds the stripes up.

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Stripes: up to this many threads count on stripes of their own; more
/// share stripes, still correctly.
const STRIPES: usize = 64;

static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static STRIPE: usize = NEXT_STRIPE.fetch_add(1, Relaxed) % STRIPES;
}

/// `N` counts of one thread stripe, alone on their cache lines (two, for
/// CPUs that fetch lines in pairs).
#[repr(align(128))]
struct Stripe<const N: usize>([AtomicU64; N]);

/// `N` counts, kept per thread.
pub(crate) struct Tally<const N: usize> {
    stripes: Box<[Stripe<N>]>,
}

impl<const N: usize> Tally<N> {
    pub(crate) fn new() -> Tally<N> {
        Tally { stripes: (0..STRIPES).map(|_| Stripe(std::array::from_fn(|_| AtomicU64::new(0)))).collect() }
    }

    /// Counts one event of kind `i`.
    #[inline]
    pub(crate) fn add(&self, i: usize) {
        self.stripes[STRIPE.with(|s| *s)].0[i].fetch_add(1, Relaxed);
    }

    /// Events of kind `i` so far, over all threads.
    pub(crate) fn total(&self, i: usize) -> u64 {
        self.stripes.iter().map(|s| s.0[i].load(Relaxed)).sum()
    }

    /// Starts every count again from zero.
    pub(crate) fn reset(&self) {
        for s in self.stripes.iter() {
            for count in &s.0 {
                count.store(0, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_all_threads_add_up() {
        let tally = Tally::<2>::new();
        std::thread::scope(|scope| {
            for t in 0..100 {
                let tally = &tally;
                scope.spawn(move || {
                    for _ in 0..1000 {
                        tally.add(t % 2);
                    }
                });
            }
        });
        assert_eq!((tally.total(0), tally.total(1)), (50_000, 50_000));
        tally.reset();
        assert_eq!(tally.total(0) + tally.total(1), 0);
    }
}
