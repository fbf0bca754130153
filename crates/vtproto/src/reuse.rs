//! What `decode_into` needs to overwrite a map in place: which of its entries the new input
//! named (by the address of their values, which stay put while nothing is inserted; values
//! of zero size share one address, so maps of them are refilled instead).

#[allow(unused_imports)]
use crate::prelude::*;
use crate::{DecodeError, Message, Reader};
use alloc::collections::BTreeMap;

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

/// A map with `String` keys, as `merge_replace` overwrites it in place.
#[allow(clippy::len_without_is_empty)]
pub trait StrMap<V> {
    /// Number of entries.
    fn len(&self) -> usize;
    /// The value under `key`.
    fn get_mut(&mut self, key: &str) -> Option<&mut V>;
    /// The value under `key`, inserted as `V::default()` when missing.
    fn entry_or_default(&mut self, key: &str) -> &mut V;
    /// Removes every entry whose value `keep` refuses.
    fn retain_values(&mut self, keep: impl FnMut(&V) -> bool);
    /// Removes every entry.
    fn clear(&mut self);
    /// Gives back the room an earlier, larger input grew (see `Retain`); nothing to give
    /// back by default.
    fn trim(&mut self) {}
}

#[cfg(feature = "std")]
impl<V: Default, S: core::hash::BuildHasher> StrMap<V> for std::collections::HashMap<String, V, S> {
    fn len(&self) -> usize {
        self.len()
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.get_mut(key)
    }
    fn entry_or_default(&mut self, key: &str) -> &mut V {
        self.entry(String::from(key)).or_default()
    }
    fn retain_values(&mut self, mut keep: impl FnMut(&V) -> bool) {
        // A hash map's values stay put while it removes: `retain` may test addresses.
        self.retain(|_, v| keep(v));
    }
    fn clear(&mut self) {
        self.clear();
    }
    fn trim(&mut self) {
        Retain::trim_retained(self);
    }
}

impl<V: Default> StrMap<V> for BTreeMap<String, V> {
    fn len(&self) -> usize {
        self.len()
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.get_mut(key)
    }
    fn entry_or_default(&mut self, key: &str) -> &mut V {
        self.entry(String::from(key)).or_default()
    }
    fn retain_values(&mut self, mut keep: impl FnMut(&V) -> bool) {
        // Removing from a B-tree moves its other entries: find the keys first.
        let gone: Vec<String> = self
            .iter()
            .filter(|(_, v)| !keep(v))
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            self.remove(&k);
        }
    }
    fn clear(&mut self) {
        self.clear();
    }
}

/// One entry of a string-keyed map field in `merge_replace`, the entry's key already read:
/// overwrites the value in place while [`MapReuse`] allows (`fill` reads the value from the
/// entry into the existing one); `Ok(false)` without reading anything when the map is not
/// overwritten in place, for the caller to insert the entry as `merge_field` does.
#[inline]
pub fn replace_str_map_entry<'a, M: StrMap<V>, V>(
    map: &mut M,
    state: &mut MapReuse,
    r: &mut Reader<'a>,
    key_key: u32,
    mut fill: impl FnMut(&mut Reader<'a>, &mut V) -> Result<(), DecodeError>,
) -> Result<bool, DecodeError> {
    if core::mem::size_of::<V>() == 0 && state.mode == 0 {
        // Zero-sized values (`()`, a message without fields in `mode=prost`) all sit at one
        // address, so the input's entries could not be told apart from the stale ones: such a
        // map is cleared and filled fresh (there is no value to reuse anyway).
        map.clear();
    }
    if !state.in_place(map.len()) {
        return Ok(false);
    }
    let (k, mut entry) = r.read_map_entry_str_key(key_key)?;
    if let Some(v) = map.get_mut(k) {
        if state.name(addr(&*v)) {
            let result = fill(&mut entry, v);
            return r.joined(&entry, result).map(|()| true);
        }
    }
    state.turn_fresh();
    map.retain_values(|v| state.keeps(addr(v)));
    let cost = k.len() + core::mem::size_of::<String>() + core::mem::size_of::<V>();
    let result = entry
        .charge(cost)
        .and_then(|()| fill(&mut entry, map.entry_or_default(k)));
    r.joined(&entry, result).map(|()| true)
}

/// After `merge_replace`'s input: clears a map field the input lacked, removes from one
/// overwritten in place the entries the input did not name.
#[inline]
pub fn finish_str_map<M: StrMap<V>, V>(map: &mut M, state: &MapReuse) {
    if state.absent() {
        map.clear();
        map.trim();
    } else if state.has_stale(map.len()) {
        map.retain_values(|v| state.keeps(addr(v)));
        map.trim();
    } else if state.mode == 2 {
        map.trim();
    }
}

/// `merge_replace`'s loop: each key in `r` to `step`, an error located in message `M`.
#[inline(always)]
pub fn replace_loop<'a, M: Message>(
    r: &mut Reader<'a>,
    mut step: impl FnMut(u32, &mut Reader<'a>) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    while !r.is_empty() {
        let key = r.read_key()?;
        if let Err(e) = step(key, r) {
            return Err(e.push(M::NAME, M::field_name(key >> 3)));
        }
    }
    Ok(())
}

/// Spare capacity, in bytes, a string reused by `decode_into` keeps beyond twice what it
/// holds: past it, a new value gets a buffer of its own, so that one large input does not pin
/// its memory for the small ones after it.
pub const RETAIN_SLACK: usize = 4096;

/// Whether a collection holding `len` elements of `size` bytes in room for `capacity` keeps
/// more than `RETAIN_SLACK` bytes beyond twice what it holds.
#[inline(always)]
fn oversized(capacity: usize, len: usize, size: usize) -> bool {
    capacity > len.saturating_mul(2) && (capacity - len).saturating_mul(size) > RETAIN_SLACK
}

/// A collection whose spare capacity `decode_into` bounds (see `trim_retained`).
pub trait Retain {
    /// When it takes more than `RETAIN_LARGE` bytes, gives back capacity beyond twice its
    /// length.
    fn trim_retained(&mut self);
}

impl<T> Retain for Vec<T> {
    #[inline(always)]
    fn trim_retained(&mut self) {
        #[cold]
        #[inline(never)]
        fn shrink<T>(v: &mut Vec<T>) {
            if oversized(v.capacity(), v.len(), core::mem::size_of::<T>()) {
                v.shrink_to(v.len() * 2);
            }
        }
        // One comparison with a constant on the common path (`decode_into` runs this for
        // every message it rewrites).
        if self.capacity() > RETAIN_LARGE / core::mem::size_of::<T>().max(1) {
            shrink(self);
        }
    }
}

#[cfg(feature = "std")]
impl<K: Eq + core::hash::Hash, V, S: core::hash::BuildHasher> Retain
    for std::collections::HashMap<K, V, S>
{
    #[inline(always)]
    fn trim_retained(&mut self) {
        #[cold]
        #[inline(never)]
        fn shrink<K: Eq + core::hash::Hash, V, S: core::hash::BuildHasher>(
            m: &mut std::collections::HashMap<K, V, S>,
        ) {
            if oversized(m.capacity(), m.len(), core::mem::size_of::<(K, V)>()) {
                m.shrink_to(m.len() * 2);
            }
        }
        if self.capacity() > RETAIN_LARGE / core::mem::size_of::<(K, V)>().max(1) {
            shrink(self);
        }
    }
}

/// Before `merge_replace`: empties a string or bytes field, giving back a buffer larger than
/// `RETAIN_LARGE` (one allocation per decode for values that large, against the copy of
/// their bytes).
#[inline(always)]
pub fn clear_retained<T: Default + Clearable>(value: &mut T) {
    if value.capacity() > RETAIN_LARGE {
        *value = T::default();
    } else {
        value.clear();
    }
}

/// The room a collection or string keeps across `decode_into` calls whatever it holds; past
/// it, it keeps at most twice what it holds.
pub const RETAIN_LARGE: usize = 64 * 1024;

/// A string or byte buffer [`clear_retained`] empties.
pub trait Clearable {
    /// Its capacity in bytes.
    fn capacity(&self) -> usize;
    /// Empties it, keeping its buffer.
    fn clear(&mut self);
}

impl Clearable for String {
    #[inline(always)]
    fn capacity(&self) -> usize {
        String::capacity(self)
    }
    #[inline(always)]
    fn clear(&mut self) {
        String::clear(self);
    }
}

impl Clearable for Vec<u8> {
    #[inline(always)]
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
    #[inline(always)]
    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// After `merge_replace`: `value` gives back what an earlier, larger input grew (see
/// `Retain`).
#[inline]
pub fn trim_retained<R: Retain>(value: &mut R) {
    value.trim_retained();
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

    /// One entry `{key: "a"}` of a string-keyed map, as `replace_str_map_entry` reads it.
    const ENTRY_A: [u8; 4] = [3, 0x0a, 1, b'a'];

    #[test]
    fn zero_sized_values_are_refilled_not_patched() {
        // Every `()` sits at one address: noting "a" would keep "b" too.
        let mut map: BTreeMap<String, ()> = [("a".into(), ()), ("b".into(), ())].into();
        let mut state = MapReuse::default();
        let mut r = Reader::new(&ENTRY_A);
        let placed = replace_str_map_entry(&mut map, &mut state, &mut r, 0x0a, |_, _| Ok(()));
        assert!(!placed.unwrap(), "the caller inserts the entry");
        assert!(map.is_empty(), "the stale entries are gone before it does");
        map.insert("a".into(), ());
        finish_str_map(&mut map, &state);
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn sized_values_are_patched_in_place() {
        let mut map: BTreeMap<String, u8> = [("a".into(), 1), ("b".into(), 2)].into();
        let mut state = MapReuse::default();
        let mut r = Reader::new(&ENTRY_A);
        let placed = replace_str_map_entry(&mut map, &mut state, &mut r, 0x0a, |_, v| {
            *v = 9;
            Ok(())
        });
        assert!(placed.unwrap() && r.is_empty());
        finish_str_map(&mut map, &state);
        assert_eq!(map.into_iter().collect::<Vec<_>>(), [("a".into(), 9)]);
    }
}
