//! [`DecodeLimits`]: what one decode may take, one type for every decode path (binary owned,
//! `merge`, `decode_into`, views, ProtoJSON, the text format, `DynamicMessage`, the tonic
//! codec).

use crate::error::{DecodeError, DecodeErrorKind};

/// Nesting depth allowed by default, as in prost and the C++ implementation.
pub const DEFAULT_RECURSION_LIMIT: u32 = 100;

/// The memory budget of a decode beyond its input's own size (see
/// [`DecodeLimits::memory_budget`]): 32 MiB, as buffa's default.
pub const DEFAULT_MEMORY_BUDGET: usize = 32 << 20;

/// The largest input a decode takes by default: 2 GiB less a byte, protobuf's own limit on an
/// encoded message (see [`DecodeLimits::max_input_size`]).
pub const DEFAULT_MAX_INPUT_SIZE: usize = i32::MAX as usize;

/// Limits on what one decode may take. Every decode path reads the same type, so a value one
/// path accepts, every other path accepts under the same limits.
///
/// ```
/// use vtproto::DecodeLimits;
///
/// // A server that takes requests of up to 1 MiB and lets each grow by 8 MiB in memory.
/// let limits = DecodeLimits {
///     max_input_size: 1 << 20,
///     memory_budget: 8 << 20,
///     ..DecodeLimits::default()
/// };
/// assert_eq!(limits.recursion_limit, 100);
/// ```
///
/// `..Default::default()` keeps code compiling as limits are added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// How many levels of messages may nest below the top-level one: nested messages, groups
    /// and map entries each count one, and ProtoJSON and the text format count message levels
    /// as the binary decoder does. Default 100 ([`DEFAULT_RECURSION_LIMIT`]), as prost and
    /// protobuf's C++ and Java parsers; past it, [`DecodeErrorKind::RecursionLimit`].
    pub recursion_limit: u32,
    /// Bytes the decode may allocate beyond its input's size: each element of a repeated field
    /// or map (its in-memory size), each new message value (its struct), each string and
    /// bytes value (its length), each unknown field kept (its record), charged before the
    /// allocation; past it, [`DecodeErrorKind::MemoryBudget`]. The input's size is added
    /// because a value whose fields take about what their encoding does (a large `bytes`
    /// value, a long string) is not an amplification; what the budget stops is a few bytes
    /// becoming a struct each (a repeated empty message is 2 bytes on the wire). Default
    /// 32 MiB ([`DEFAULT_MEMORY_BUDGET`]); `usize::MAX` turns it off.
    pub memory_budget: usize,
    /// The largest input, in bytes; a longer one is refused before anything is read
    /// ([`DecodeErrorKind::InputTooLarge`]). Default 2 GiB - 1 ([`DEFAULT_MAX_INPUT_SIZE`]),
    /// protobuf's own limit: the memory budget, not the input's size, bounds what a decode
    /// takes, and a server bounds its requests at its transport (tonic's
    /// `max_decoding_message_size`, 4 MiB by default).
    pub max_input_size: usize,
    /// How many unknown fields one decode may keep (`mode=standalone`'s `unknown_fields`, and
    /// `DynamicMessage`); past it, [`DecodeErrorKind::UnknownFieldLimit`]. Default unlimited:
    /// each one is charged to the memory budget, and a server built on an older schema keeps
    /// every field a newer client sends (a new repeated field is one unknown field per
    /// element) to pass it on.
    pub max_unknown_fields: usize,
    /// How many bytes of unknown fields one decode may keep; past it,
    /// [`DecodeErrorKind::UnknownFieldLimit`]. Default unlimited, as
    /// [`max_unknown_fields`](Self::max_unknown_fields).
    pub max_unknown_bytes: usize,
}

impl DecodeLimits {
    /// The default limits, as a constant.
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        recursion_limit: DEFAULT_RECURSION_LIMIT,
        memory_budget: DEFAULT_MEMORY_BUDGET,
        max_input_size: DEFAULT_MAX_INPUT_SIZE,
        max_unknown_fields: usize::MAX,
        max_unknown_bytes: usize::MAX,
    };

    /// The memory budget of a decode of `input_len` bytes: the input's size plus
    /// [`memory_budget`](Self::memory_budget).
    #[inline]
    pub fn budget_for(&self, input_len: usize) -> usize {
        input_len.saturating_add(self.memory_budget)
    }

    /// Refuses an input longer than [`max_input_size`](Self::max_input_size).
    #[inline]
    pub fn check_input(&self, input_len: usize) -> Result<(), DecodeError> {
        if input_len > self.max_input_size {
            return Err(DecodeError::new(DecodeErrorKind::InputTooLarge {
                size: input_len,
                limit: self.max_input_size,
            }));
        }
        Ok(())
    }
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits::DEFAULT
    }
}

/// The memory budget of a ProtoJSON or text-format read: what is left, and what it started
/// with (for the error).
#[cfg(any(feature = "json", feature = "text"))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    left: usize,
    start: usize,
}

#[cfg(any(feature = "json", feature = "text"))]
impl Budget {
    /// The budget of a read of `input_len` bytes under `limits`.
    pub(crate) fn new(limits: &DecodeLimits, input_len: usize) -> Self {
        let start = limits.budget_for(input_len);
        Budget { left: start, start }
    }

    /// Charges `bytes`, or says the budget is spent.
    #[inline]
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), ()> {
        self.left = self.left.checked_sub(bytes).ok_or(())?;
        Ok(())
    }

    /// What it started with.
    pub(crate) fn start(&self) -> usize {
        self.start
    }
}

/// The limits' methods of the ProtoJSON and text readers: the input size check, the charge to
/// the memory budget and the typed charges generated `merge_json` and `merge_text` code
/// makes, for a reader with a `budget: Budget`, its input in `$input`, `options.limits`, and
/// `error` / `error_at` making an `$err` of an `$kind`.
#[cfg(any(feature = "json", feature = "text"))]
macro_rules! charge_helpers {
    ($err:ty, $kind:ident, $input:ident) => {
        /// Refuses an input longer than the options' `max_input_size`.
        pub fn check_input_size(&self) -> Result<(), $err> {
            let limit = self.options.limits.max_input_size;
            if self.$input.len() > limit {
                return Err(self.error_at(
                    0,
                    $kind::InputTooLarge {
                        size: self.$input.len(),
                        limit,
                    },
                ));
            }
            Ok(())
        }

        /// Charges `bytes` to the memory budget, before allocating them.
        #[inline]
        pub fn charge(&mut self, bytes: usize) -> Result<(), $err> {
            match self.budget.charge(bytes) {
                Ok(()) => Ok(()),
                Err(()) => Err(self.over_budget()),
            }
        }

        #[cold]
        #[inline(never)]
        fn over_budget(&self) -> $err {
            self.error($kind::MemoryBudget {
                budget: self.budget.start(),
            })
        }

        /// Charges one more element of `dst` to the memory budget, before it is pushed.
        #[inline]
        pub fn charge_element<T>(&mut self, dst: &Vec<T>) -> Result<(), $err> {
            let _ = dst;
            self.charge(core::mem::size_of::<T>())
        }

        /// Charges what `value` takes inline (a map entry's key or value) to the memory
        /// budget, before it is stored.
        #[inline]
        pub fn charge_value<T>(&mut self, value: &T) -> Result<(), $err> {
            let _ = value;
            self.charge(core::mem::size_of::<T>())
        }

        /// Charges a boxed message field's new value, if it has none yet.
        #[inline]
        pub fn charge_boxed<M>(&mut self, field: &Option<Box<M>>) -> Result<(), $err> {
            match field {
                Some(_) => Ok(()),
                None => self.charge(core::mem::size_of::<M>()),
            }
        }
    };
}
#[cfg(any(feature = "json", feature = "text"))]
pub(crate) use charge_helpers;
