//! What `decode_into` needs to overwrite a map in place: which of its entries the new input
//! named (by the address of their values, which stay put while nothing is inserted).

#[allow(unused_imports)]
use crate::prelude::*;

/// The state of one string-keyed map field during a `merge_replace`.
///
/// The map starts in place: each entry whose key the map has overwrites that value, and the
/// value's address is noted. An entry with a key the map lacks (or more than [`Self::MAX`]
/// distinct keys) turns the map fresh: the entries not named so far are removed and the rest
/// are inserted. At the end, an in-place map loses the entries the input did not name.
#[derive(Debug)]
pub struct MapReuse {
    /// 0: no entry yet; 1: in place; 2: fresh.
    mode: u8,
    named: usize,
    seen: [usize; MapReuse::MAX],
}

impl Default for MapReuse {
    fn default() -> Self {
        MapReuse {
            mode: 0,
            named: 0,
            seen: [0; MapReuse::MAX],
        }
    }
}

impl MapReuse {
    /// Most distinct entries tracked in place.
    pub const MAX: usize = 32;

    /// Called at each entry: whether to overwrite in place (`len` is the map's length).
    #[inline]
    pub fn in_place(&mut self, len: usize) -> bool {
        if self.mode == 0 {
            self.mode = if len > 0 { 1 } else { 2 };
        }
        self.mode == 1
    }

    /// Notes that the input named the entry whose value is at `value`; false (the map must
    /// turn fresh) when there is no room left to note it.
    #[inline]
    pub fn name(&mut self, value: usize) -> bool {
        if self.seen[..self.named].contains(&value) {
            return true;
        }
        if self.named == Self::MAX {
            return false;
        }
        self.seen[self.named] = value;
        self.named += 1;
        true
    }

    /// Turns the map fresh; it must then keep only the entries [`keeps`](Self::keeps) says.
    #[inline]
    pub fn turn_fresh(&mut self) {
        self.mode = 2;
    }

    /// Whether the entry whose value is at `value` was named by the input.
    #[inline]
    pub fn keeps(&self, value: usize) -> bool {
        self.seen[..self.named].contains(&value)
    }

    /// After the input: whether the map must be cleared (the field was absent).
    #[inline]
    pub fn absent(&self) -> bool {
        self.mode == 0
    }

    /// After the input: whether an in-place map of `len` entries holds some the input did
    /// not name, to be removed with [`keeps`](Self::keeps).
    #[inline]
    pub fn has_stale(&self, len: usize) -> bool {
        self.mode == 1 && self.named < len
    }
}

/// The address of a value, as [`MapReuse`] notes it.
#[inline(always)]
pub fn addr<T>(value: &T) -> usize {
    value as *const T as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_until_a_new_key() {
        let mut m = MapReuse::default();
        assert!(m.in_place(2));
        assert!(m.name(8) && m.name(16) && m.name(8));
        assert!(!m.has_stale(2), "both entries named, one twice");
        assert!(m.keeps(16) && !m.keeps(24));
        m.turn_fresh();
        assert!(!m.in_place(2) && !m.has_stale(3));
        let mut empty = MapReuse::default();
        assert!(empty.absent());
        assert!(!empty.in_place(0), "an empty map is filled fresh");
        let mut full = MapReuse::default();
        assert!(full.in_place(40));
        assert!((1..=32).all(|i| full.name(i * 8)));
        assert!(!full.name(1000), "no room: the caller turns the map fresh");
        assert!(full.has_stale(40));
    }
}
