//! The order of a slice's entries in its files.
//!
//! An index is three parts in mixed radix (index.rs): the men
//! configuration, the own kings' placement and the opponent's kings'
//! placement, the last varying fastest. A file may store the entries in
//! any of the six orders of these parts: which order makes the longest
//! runs depends on the slice (up to a third fewer bytes for one, none for
//! another; docs/COMPRESSION.md), so the writer picks one per slice and
//! the header records it. Positions keep their index everywhere else.

use crate::index::{IndexParts, SliceIndex};

/// The parts of an index: men configuration, own kings, opponent's kings.
const CONFIG: usize = 0;
const OWN_KINGS: usize = 1;
const OPP_KINGS: usize = 2;

/// The parts in each order, slowest first; order 0 is the index's own.
const ORDERS: [[usize; 3]; 6] = [
    [CONFIG, OWN_KINGS, OPP_KINGS],
    [CONFIG, OPP_KINGS, OWN_KINGS],
    [OWN_KINGS, OPP_KINGS, CONFIG],
    [OPP_KINGS, OWN_KINGS, CONFIG],
    [OWN_KINGS, CONFIG, OPP_KINGS],
    [OPP_KINGS, CONFIG, OWN_KINGS],
];

/// Which part of the index varies fastest in a file, which next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntryOrder(u8);

impl EntryOrder {
    /// The index's own order: opponent's kings fastest, then own kings.
    pub const INDEX: EntryOrder = EntryOrder(0);

    /// Every order, the index's own first.
    pub fn all() -> impl Iterator<Item = EntryOrder> {
        (0..ORDERS.len() as u8).map(EntryOrder)
    }

    /// The orders that lay out the slice of `index` differently, each the
    /// first of those that lay it out alike (a part with one value, such
    /// as the kings of a side without any, goes anywhere): one for a
    /// slice of men alone, two where one side has kings.
    pub fn distinct(index: &SliceIndex) -> Vec<EntryOrder> {
        let (own, opp) = index.king_placements();
        let radix = [index.configs(), own, opp];
        let mut seen: Vec<Vec<usize>> = Vec::new();
        EntryOrder::all()
            .filter(|o| {
                let varying: Vec<usize> = ORDERS[o.0 as usize].into_iter().filter(|&p| radix[p] > 1).collect();
                let new = !seen.contains(&varying);
                seen.push(varying);
                new
            })
            .collect()
    }

    /// The order a header's byte names, if any.
    pub fn from_id(id: u8) -> Option<EntryOrder> {
        ((id as usize) < ORDERS.len()).then_some(EntryOrder(id))
    }

    pub fn id(self) -> u8 {
        self.0
    }

    /// The parts, slowest first, as `damka info` names them.
    pub fn name(self) -> &'static str {
        ["men/own/opp", "men/opp/own", "own/opp/men", "opp/own/men", "own/men/opp", "opp/men/own"][self.0 as usize]
    }
}

/// Where each position's entry stands in a file of a slice: its slot.
#[derive(Clone, Copy, Debug)]
pub struct EntryLayout {
    /// The parts, slowest first.
    order: [usize; 3],
    /// How many values each part takes: configurations, own and opponent
    /// king placements.
    radix: [u64; 3],
    /// How far apart in slots neighbouring values of each part lie.
    strides: [u64; 3],
    /// Slots are indices: no arithmetic.
    identity: bool,
}

impl EntryLayout {
    pub fn new(index: &SliceIndex, order: EntryOrder) -> EntryLayout {
        let (own, opp) = index.king_placements();
        let (order, radix) = (ORDERS[order.0 as usize], [index.configs(), own, opp]);
        let mut strides = [0; 3];
        strides[order[2]] = 1;
        strides[order[1]] = radix[order[2]];
        strides[order[0]] = radix[order[2]] * radix[order[1]];
        EntryLayout { order, radix, strides, identity: order == ORDERS[0] }
    }

    /// Slots in index order, for tables whose index has no such parts
    /// (Cheskers).
    pub fn identity() -> EntryLayout {
        EntryLayout { order: ORDERS[0], radix: [0; 3], strides: [0; 3], identity: true }
    }

    /// Positions the layout places: `None` for the identity, which places
    /// any number.
    pub fn positions(&self) -> Option<u64> {
        (!self.identity).then(|| self.radix.iter().product())
    }

    /// The slot of the position at `index`.
    #[inline]
    pub fn slot(&self, index: u64) -> u64 {
        if self.identity {
            return index;
        }
        let [_, own, opp] = self.radix;
        let kings = index % (own * opp);
        let parts = [index / (own * opp), kings / opp, kings % opp];
        let [a, b, c] = self.order;
        (parts[a] * self.radix[b] + parts[b]) * self.radix[c] + parts[c]
    }

    /// [`Self::slot`] of a position whose index parts are known: no
    /// division (a probe's path).
    #[inline]
    pub fn slot_of(&self, parts: IndexParts) -> u64 {
        if self.identity {
            return parts.index;
        }
        parts.config * self.strides[CONFIG] + parts.own_kings * self.strides[OWN_KINGS] + parts.opp_kings * self.strides[OPP_KINGS]
    }

    /// The indices of the positions in `slots`, in slot order: the parts
    /// stepped from one slot to the next like an odometer, without the
    /// divisions of [`Self::index`] for each.
    pub fn indices(&self, slots: std::ops::Range<u64>) -> impl Iterator<Item = u64> + '_ {
        let start = slots.start;
        let [_, own, opp] = self.radix;
        let mut parts = match self.identity {
            true => [0; 3],
            false => {
                let index = self.index(start);
                [index / (own * opp), index / opp % own, index % opp]
            }
        };
        let [a, b, c] = self.order;
        slots.map(move |slot| {
            if self.identity {
                return slot;
            }
            let index = (parts[CONFIG] * own + parts[OWN_KINGS]) * opp + parts[OPP_KINGS];
            // The fastest part steps, carrying into the slower ones.
            for p in [c, b, a] {
                parts[p] += 1;
                if parts[p] < self.radix[p] {
                    break;
                }
                parts[p] = 0;
            }
            index
        })
    }

    /// The index of the position in `slot`: the inverse of [`Self::slot`].
    #[inline]
    pub fn index(&self, slot: u64) -> u64 {
        if self.identity {
            return slot;
        }
        let [a, b, c] = self.order;
        let mut parts = [0; 3];
        parts[c] = slot % self.radix[c];
        parts[b] = slot / self.radix[c] % self.radix[b];
        parts[a] = slot / (self.radix[c] * self.radix[b]);
        let [config, own, opp] = parts;
        (config * self.radix[OWN_KINGS] + own) * self.radix[OPP_KINGS] + opp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Material;

    /// Every order is a bijection between indices and slots, and order 0
    /// is the identity.
    #[test]
    fn slots_are_a_permutation_of_indices() {
        for material in [Material::new(1, 1, 1, 1), Material::new(2, 0, 1, 1), Material::new(0, 2, 2, 0), Material::new(1, 2, 0, 1)] {
            let index = SliceIndex::new(material);
            let n = index.size();
            for order in EntryOrder::all() {
                let layout = EntryLayout::new(&index, order);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let slot = layout.slot(i);
                    assert_eq!(layout.slot_of(index.parts_unchecked(&index.position(i))), slot, "{material} {order:?}");
                    assert!(slot < n && !seen[slot as usize], "{material} {order:?}: slot {slot} of {i}");
                    seen[slot as usize] = true;
                    assert_eq!(layout.index(slot), i, "{material} {order:?}");
                    assert_eq!(layout.indices(slot..slot + 1).next(), Some(i), "{material} {order:?}");
                    if order == EntryOrder::INDEX {
                        assert_eq!(slot, i);
                    }
                }
                // Stepping through slots gives what inverting each does.
                for from in [0, n / 3] {
                    let stepped: Vec<u64> = layout.indices(from..n).collect();
                    assert!(stepped.iter().zip(from..).all(|(&i, slot)| i == layout.index(slot)), "{material} {order:?}");
                }
            }
        }
    }

    /// Orders that [`EntryOrder::distinct`] leaves out lay the slice out as
    /// one it keeps.
    #[test]
    fn distinct_orders_lay_out_differently() {
        for (material, distinct) in [((0, 2, 0, 1), 1), ((1, 1, 0, 1), 2), ((0, 1, 2, 0), 2), ((2, 0, 1, 0), 2), ((1, 1, 1, 1), 6)] {
            let index = SliceIndex::new(Material::new(material.0, material.1, material.2, material.3));
            let kept = EntryOrder::distinct(&index);
            assert_eq!(kept.len(), distinct, "{material:?}");
            assert_eq!(kept[0], EntryOrder::INDEX);
            let slots = |o| {
                let layout = EntryLayout::new(&index, o);
                (0..index.size()).map(|i| layout.slot(i)).collect::<Vec<u64>>()
            };
            for order in EntryOrder::all() {
                let same = kept.iter().filter(|&&k| slots(k) == slots(order)).count();
                assert_eq!(same, 1, "{material:?} {order:?}: laid out as {same} kept orders");
            }
        }
    }

    /// The part named fastest is the one that changes between neighbouring
    /// slots.
    #[test]
    fn the_fastest_part_varies_fastest() {
        let index = SliceIndex::new(Material::new(1, 1, 1, 1));
        let (own, opp) = index.king_placements();
        for (order, step) in [(0, 1), (1, opp), (2, own * opp), (3, own * opp)] {
            let layout = EntryLayout::new(&index, EntryOrder::from_id(order).unwrap());
            assert_eq!(layout.index(1) - layout.index(0), step, "order {order}");
        }
    }
}
