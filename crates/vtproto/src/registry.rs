//! The floor under ProtoJSON and the text format: the registry of the message types an `Any`
//! may hold, an `Any` value's bytes to and from a message, line and column of an input
//! position, and the duplicate-field bitset generated readers share. It knows no format: each
//! format keeps its own entry type (`json::AnyType`, `text::AnyText`) here, so the text format
//! compiles without JSON and neither format imports the other.

use alloc::collections::BTreeMap;

use crate::prelude::*;

/// Message types an `Any` may hold, by full name; passed per call in the options of JSON and
/// of the text format alike. Generated code gives each package a `register_json_types(&mut
/// TypeRegistry)` (`features=..+json`) and a `register_text_types` (`features=..+text`); the
/// well-known types need no registration.
#[derive(Clone, Debug, Default)]
pub struct TypeRegistry {
    #[cfg(feature = "json")]
    json: BTreeMap<&'static str, crate::json::AnyType>,
    #[cfg(feature = "text")]
    text: BTreeMap<&'static str, crate::text::AnyText>,
}

impl TypeRegistry {
    /// An empty registry (the well-known types are known without it).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `M`'s JSON form.
    #[cfg(feature = "json")]
    pub fn add<M: crate::json::JsonMessage>(&mut self) -> &mut Self {
        self.insert(crate::json::AnyType::of::<M>())
    }

    /// Adds a JSON entry.
    #[cfg(feature = "json")]
    pub fn insert(&mut self, t: crate::json::AnyType) -> &mut Self {
        self.json.insert(t.name(), t);
        self
    }

    /// The JSON entry for a full name.
    #[cfg(feature = "json")]
    pub fn get(&self, full_name: &str) -> Option<&crate::json::AnyType> {
        self.json.get(full_name)
    }

    /// Adds `M`'s text form.
    #[cfg(feature = "text")]
    pub fn add_text<M: crate::text::TextMessage>(&mut self) -> &mut Self {
        let t = crate::text::AnyText::of::<M>();
        self.text.insert(t.name(), t);
        self
    }

    /// The text-format entry for a full name.
    #[cfg(feature = "text")]
    pub fn get_text(&self, full_name: &str) -> Option<&crate::text::AnyText> {
        self.text.get(full_name)
    }

    /// How many types it holds (for JSON, the text format, or both).
    pub fn len(&self) -> usize {
        let mut names: Vec<&str> = Vec::new();
        #[cfg(feature = "json")]
        names.extend(self.json.keys().copied());
        #[cfg(feature = "text")]
        names.extend(self.text.keys().copied());
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An `Any`'s value decoded, by the leanest path through the codec (these are compiled for
/// every registered type, for JSON and the text format): a plain merge.
pub(crate) fn merged<M: crate::Message + Default>(bytes: &[u8]) -> Result<M, crate::DecodeError> {
    let mut msg = M::default();
    msg.merge(&mut crate::Reader::new(bytes))?;
    Ok(msg)
}

/// A message encoded for an `Any`'s value: one size walk, then one backward write.
pub(crate) fn encoded<M: crate::Message>(msg: &M) -> Vec<u8> {
    let mut buf = vec![0u8; msg.size()];
    let mut w = crate::ReverseWriter::new(&mut buf);
    msg.encode_reverse(&mut w);
    buf
}

/// The 1-based line and column (in characters: every byte but UTF-8 continuation bytes) of
/// byte `pos` of `input`, where JSON and text-format errors are placed.
#[cold]
pub(crate) fn line_column(input: &[u8], pos: usize) -> (u32, u32) {
    let before = &input[..pos.min(input.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = before[line_start..]
        .iter()
        .filter(|&&b| b & 0xc0 != 0x80)
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// The fields a reader has seen in one message, a bit each: on the stack up to 128 fields
/// (most messages), else on the heap.
#[cfg(feature = "reflect")]
pub(crate) enum Seen {
    Small([u64; 2]),
    Large(Vec<u64>),
}

#[cfg(feature = "reflect")]
impl Seen {
    /// Room for `fields` bits.
    pub(crate) fn new(fields: usize) -> Seen {
        if fields <= 128 {
            Seen::Small([0; 2])
        } else {
            Seen::Large(vec![0; fields.div_ceil(64)])
        }
    }

    /// [`first`] on these bits.
    pub(crate) fn first(&mut self, bit: usize) -> bool {
        match self {
            Seen::Small(words) => first(words, bit),
            Seen::Large(words) => first(words, bit),
        }
    }
}

/// Marks field `bit` seen; `false` if it already was (a duplicate). Generated JSON and text
/// readers keep one bit per field.
#[inline(always)]
pub fn first(seen: &mut [u64], bit: usize) -> bool {
    let (word, mask) = (bit / 64, 1u64 << (bit % 64));
    match seen.get_mut(word) {
        Some(w) if *w & mask == 0 => {
            *w |= mask;
            true
        }
        _ => false,
    }
}
