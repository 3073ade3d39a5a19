//! What a build keeps of a finished slice for the pairs after it: each
//! position's result alone, half a byte, where the solver's values take two
//! bytes and a capture bit.
//!
//! A later pair reaches a finished slice only by a capture or a promotion,
//! and both reset the distance to conversion, so what it reads there is the
//! result (a win, a cursed win, a draw, a blessed loss or a loss), never
//! the distance. Keeping results alone cuts the memory of the slices a
//! pair reads by four: for the largest 7-piece pair (KKMvKKMM, which reads
//! 2.4 billion positions) from 4.8 GiB to 1.1 GiB.
//! Builds that count distances through conversions ([`Metric::End`]) keep
//! whole values ([`crate::solver::Known`]).
//!
//! [`Metric::End`]: crate::solver::Metric::End

use std::collections::HashMap;
use std::sync::Arc;

use damka::{Material, SliceIndex, Value};
use rayon::prelude::*;

use crate::solver::{Known, Solved};

/// The values of a slice as its readers see them.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    /// Packed [`Value`]s, one a position.
    Packed(&'a [u16]),
    /// Results only: the low three bits of each packed value, two positions
    /// a byte (the first in the low half).
    Results(&'a [u8]),
}

impl Values<'_> {
    /// The value at `index`; from results, with a distance of 0.
    #[inline]
    pub fn at(self, index: u64) -> Value {
        self.get(index).expect("the solver writes valid values")
    }

    /// The value at `index`, `None` for bits that are not one (read from a
    /// damaged file).
    #[inline]
    pub fn get(self, index: u64) -> Option<Value> {
        let i = index as usize;
        let bits = match self {
            Values::Packed(values) => values[i],
            Values::Results(codes) => u16::from(half_byte(codes, i)),
        };
        Value::unpack(bits)
    }

    /// Asks for the line holding the value at `index` ahead of [`Self::at`].
    #[inline]
    pub fn prefetch(self, index: u64) {
        let i = index as usize;
        match self {
            Values::Packed(values) => values.get(i).map(prefetch),
            Values::Results(codes) => codes.get(i / 2).map(prefetch),
        };
    }
}

/// Asks the processor to fetch the line of `item` into its caches.
#[inline]
pub fn prefetch<T>(item: &T) {
    // SAFETY: a prefetch only hints; it reads nothing the program sees and
    // cannot fault. SSE is part of every x86-64 processor.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((item as *const T).cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

/// Half byte `i` of `bytes`, two a byte, the first in the low half: how
/// results (and the writer's ways of storing) are packed.
#[inline]
pub fn half_byte(bytes: &[u8], i: usize) -> u8 {
    bytes[i / 2] >> (4 * (i % 2)) & 0xf
}

/// Sets half byte `i` of `bytes` to `code` (below 16), where it is still 0.
#[inline]
pub fn set_half_byte(bytes: &mut [u8], i: usize, code: u8) {
    bytes[i / 2] |= code << (4 * (i % 2));
}

/// A slice with its values, as the pairs after it read it.
pub type SliceValues<'a> = (&'a SliceIndex, Values<'a>);

/// A finished slice kept for the pairs after it: its positions' results.
pub struct Kept {
    pub index: SliceIndex,
    codes: Vec<u8>,
}

impl Kept {
    /// Positions a chunk of the parallel conversion: a few pages.
    const CHUNK: usize = 1 << 15;

    /// What the pairs after it need of `solved`.
    pub fn of(solved: &Solved) -> Kept {
        let mut codes = vec![0u8; solved.values.len().div_ceil(2)];
        codes.par_chunks_mut(Self::CHUNK / 2).zip(solved.values.par_chunks(Self::CHUNK)).for_each(|(codes, values)| {
            for (i, &v) in values.iter().enumerate() {
                set_half_byte(codes, i, (v & 7) as u8);
            }
        });
        Kept { index: solved.index.clone(), codes }
    }

    /// From the bytes [`Kept::codes`] gave; `None` if they are not as many
    /// as the slice needs.
    pub fn from_codes(index: SliceIndex, codes: Vec<u8>) -> Option<Kept> {
        (codes.len() as u64 == index.size().div_ceil(2)).then_some(Kept { index, codes })
    }

    /// The results, two positions a byte (see [`Values::Results`]).
    pub fn codes(&self) -> &[u8] {
        &self.codes
    }

    pub fn view(&self) -> SliceValues<'_> {
        (&self.index, Values::Results(&self.codes))
    }
}

impl Solved {
    pub fn view(&self) -> SliceValues<'_> {
        (&self.index, Values::Packed(&self.values))
    }
}

/// Finished slices, by material, that a pair reads.
pub trait Finished: Sync {
    /// The slice of material `m`, if it is there.
    fn slice(&self, m: Material) -> Option<SliceValues<'_>>;
}

impl Finished for Known {
    fn slice(&self, m: Material) -> Option<SliceValues<'_>> {
        self.get(&m).map(|s| s.view())
    }
}

/// The finished slices a build keeps, by material.
pub type KeptSlices = HashMap<Material, Arc<Kept>>;

impl Finished for KeptSlices {
    fn slice(&self, m: Material) -> Option<SliceValues<'_>> {
        self.get(&m).map(|k| k.view())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::{Plies, Wdl};

    /// Every position keeps its own result, whatever its neighbours hold,
    /// in an odd number of positions spanning chunks; distances go.
    #[test]
    fn kept_results_are_the_solved_results_position_by_position() {
        let material: Material = "KKvKK".parse().unwrap();
        let mut solved = Solved::new(material);
        // An odd number of values: the last byte holds one position.
        solved.values.pop();
        let n = solved.values.len();
        assert!(n > Kept::CHUNK && n % 2 == 1, "{n} positions");
        let wdls = [Wdl::Win, Wdl::CursedWin, Wdl::Draw, Wdl::BlessedLoss, Wdl::Loss];
        for (i, v) in solved.values.iter_mut().enumerate() {
            let wdl = wdls[(i * 7 + i / 3) % wdls.len()];
            *v = Value { wdl, plies: Plies(if wdl == Wdl::Draw { 0 } else { (i % 200) as u16 }) }.pack();
        }
        let kept = Kept::of(&solved);
        let (_, values) = kept.view();
        for i in 0..n {
            let (want, got) = (Value::unpack(solved.values[i]).unwrap(), values.at(i as u64));
            assert_eq!((got.wdl, got.plies.0), (want.wdl, 0), "position {i}");
        }
        assert!(Kept::from_codes(kept.index.clone(), kept.codes().to_vec()).is_some());
        assert!(Kept::from_codes(kept.index.clone(), kept.codes()[1..].to_vec()).is_none());
    }
}
