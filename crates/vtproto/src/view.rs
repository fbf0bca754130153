//! [`MessageView`]: messages decoded without copying, whose strings and bytes borrow the input.
//!
//! Generated code (the `views` feature) implements it for `FooView<'a>` structs shaped like
//! the owned message: `&'a str` for strings, `&'a [u8]` for bytes, views for nested messages,
//! `Vec`s for repeated fields and `Vec<(K, V)>` for maps. A message that has no view of its
//! own (a well-known type, an extern type) is held owned, in [`Owned`].

#[allow(unused_imports)]
use crate::prelude::*;

use core::mem::MaybeUninit;

use bytes::Bytes;

use crate::error::DecodeError;
use crate::reader::Reader;
use crate::writer::ReverseWriter;
use crate::Message;

/// A message decoded from `&'a [u8]` without copying strings or bytes.
///
/// Decoding follows the owned decode exactly (same merge rules, limits and errors); map fields
/// keep their entries in wire order, where a later entry for a key overrides an earlier one
/// (as [`to_owned_message`](MessageView::to_owned_message) and a re-decode see them).
pub trait MessageView<'a>: Default {
    /// The owned message this is a view of.
    type Owned: Message;

    /// The exact number of bytes [`encode_reverse`](MessageView::encode_reverse) writes.
    fn size(&self) -> usize;

    /// Writes the message so that it ends at the writer's cursor.
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>);

    /// Merges one field whose key was just read from `r`.
    fn merge_field(&mut self, key: u32, r: &mut Reader<'a>) -> Result<(), DecodeError>;

    /// The owned message with the same contents.
    fn to_owned_message(&self) -> Self::Owned;

    /// Merges every field left in `r` into `self`.
    #[inline]
    fn merge(&mut self, r: &mut Reader<'a>) -> Result<(), DecodeError> {
        while !r.is_empty() {
            let key = r.read_key()?;
            if let Err(e) = self.merge_field(key, r) {
                return Err(e.push(
                    <Self::Owned as Message>::NAME,
                    <Self::Owned as Message>::field_name(key >> 3),
                ));
            }
        }
        Ok(())
    }

    /// Decodes a view of the message in `buf`.
    #[inline]
    fn decode_view(buf: &'a [u8]) -> Result<Self, DecodeError> {
        let mut view = Self::default();
        view.merge(&mut Reader::new(buf))?;
        Ok(view)
    }

    /// Decodes a view of the message in `buf` under `limits` (see
    /// [`DecodeLimits`](crate::DecodeLimits)).
    #[inline]
    fn decode_view_with_limits(
        buf: &'a [u8],
        limits: &crate::DecodeLimits,
    ) -> Result<Self, DecodeError> {
        limits.check_input(buf.len())?;
        let mut view = Self::default();
        view.merge(&mut Reader::new(buf).with_limits(limits))?;
        Ok(view)
    }

    /// Encodes into a new `Vec` of exactly the encoded length.
    fn encode_to_vec(&self) -> Vec<u8> {
        let n = self.size();
        let mut buf = vec![0u8; n];
        let mut w = ReverseWriter::new(&mut buf);
        self.encode_reverse(&mut w);
        let gap = w.remaining();
        assert_eq!(gap, 0, "size() disagrees with encode_reverse");
        buf
    }
}

/// A view's field of a message type that has no view (a well-known type, a type from another
/// crate, a message outside the `views` paths): decoded owned, as the owned decode would.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Owned<M>(pub M);

impl<'a, M: Message + Clone> MessageView<'a> for Owned<M> {
    type Owned = M;

    #[inline]
    fn size(&self) -> usize {
        self.0.size()
    }

    #[inline]
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
        self.0.encode_reverse(w)
    }

    #[inline]
    fn merge_field(&mut self, key: u32, r: &mut Reader<'a>) -> Result<(), DecodeError> {
        self.0.merge_field(key, r)
    }

    #[inline]
    fn to_owned_message(&self) -> M {
        self.0.clone()
    }
}

/// A boxed view (a recursive field) is a view of the boxed message.
impl<'a, V: MessageView<'a>> MessageView<'a> for Box<V> {
    type Owned = Box<V::Owned>;

    #[inline]
    fn size(&self) -> usize {
        (**self).size()
    }

    #[inline]
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
        (**self).encode_reverse(w)
    }

    #[inline]
    fn merge_field(&mut self, key: u32, r: &mut Reader<'a>) -> Result<(), DecodeError> {
        (**self).merge_field(key, r)
    }

    #[inline]
    fn to_owned_message(&self) -> Box<V::Owned> {
        Box::new((**self).to_owned_message())
    }
}

/// A view type for every lifetime of its input: generated code declares `FooViewFamily` for
/// each `FooView<'a>`. [`OwnedView`] needs it to hand out views that borrow from itself.
pub trait ViewFamily: 'static {
    /// The view borrowing an input of lifetime `'a`.
    type View<'a>: MessageView<'a>;

    /// A view seen for a shorter lifetime (views are covariant in it).
    fn shorten<'a, 'b: 'a>(view: &'a Self::View<'b>) -> &'a Self::View<'a>;
}

/// A view that owns its input: decoded from a [`Bytes`] (tonic's request buffer, say), it
/// can be moved, sent across threads and held across an `await`, as an owned message can,
/// without copying a string. Generated code names it `FooOwnedView` for each view.
pub struct OwnedView<F: ViewFamily> {
    // The view borrows from `bytes`. It is kept in a `MaybeUninit` (always initialized) so
    // that the references inside it are not asserted valid whenever the `OwnedView` is moved
    // or dropped (they point into a buffer this struct itself frees): it is dropped by hand,
    // first, in `Drop`.
    view: MaybeUninit<F::View<'static>>,
    bytes: Bytes,
}

impl<F: ViewFamily> OwnedView<F> {
    /// Decodes a view of the message in `bytes`, keeping `bytes` alive beside it.
    pub fn decode(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_with_limits(bytes, &crate::DecodeLimits::DEFAULT)
    }

    /// [`decode`](Self::decode) under `limits` (see [`DecodeLimits`](crate::DecodeLimits)).
    pub fn decode_with_limits(
        bytes: Bytes,
        limits: &crate::DecodeLimits,
    ) -> Result<Self, DecodeError> {
        // SAFETY: the slice points into the buffer `bytes` owns (shared and immutable, or
        // static): it neither moves nor changes while `bytes` lives, even when the
        // `OwnedView` moves. The view holding it is stored beside `bytes`, dropped before it,
        // and handed out only through `get`, which ties its lifetime to `&self`, so no
        // `'static` borrow escapes.
        let input: &'static [u8] = unsafe { &*(bytes.as_ref() as *const [u8]) };
        let view =
            <F::View<'static> as MessageView<'static>>::decode_view_with_limits(input, limits)?;
        Ok(OwnedView {
            view: MaybeUninit::new(view),
            bytes,
        })
    }

    /// The view, borrowing from `self`.
    #[inline]
    pub fn get(&self) -> &F::View<'_> {
        // SAFETY: `view` is initialized from construction until `drop`.
        F::shorten(unsafe { self.view.assume_init_ref() })
    }

    /// The input the view reads.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The owned message with the same contents.
    pub fn to_owned_message(&self) -> <F::View<'static> as MessageView<'static>>::Owned {
        // SAFETY: `view` is initialized from construction until `drop`.
        unsafe { self.view.assume_init_ref() }.to_owned_message()
    }
}

impl<F: ViewFamily> Drop for OwnedView<F> {
    fn drop(&mut self) {
        // SAFETY: `view` is initialized, and dropped only here; `bytes` is dropped after.
        unsafe { self.view.assume_init_drop() }
    }
}

impl<F: ViewFamily> Clone for OwnedView<F>
where
    F::View<'static>: Clone,
{
    fn clone(&self) -> Self {
        // The clone's view borrows the same shared buffer, which the cloned `Bytes` keeps.
        // SAFETY: `view` is initialized from construction until `drop`.
        let view = unsafe { self.view.assume_init_ref() }.clone();
        OwnedView {
            view: MaybeUninit::new(view),
            bytes: self.bytes.clone(),
        }
    }
}

impl<F: ViewFamily> core::fmt::Debug for OwnedView<F>
where
    for<'a> F::View<'a>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written view of a message with one string field (number 1) and its owned form.
    #[derive(Clone, Debug, Default, PartialEq)]
    struct NameView<'a> {
        name: &'a str,
    }

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Name {
        name: String,
    }

    impl Message for Name {
        const NAME: &'static str = "test.Name";
        fn size(&self) -> usize {
            if self.name.is_empty() {
                0
            } else {
                1 + crate::wire::len_delimited(self.name.len())
            }
        }
        fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
            if !self.name.is_empty() {
                w.put_string(&self.name);
                w.put_u8(0x0a);
            }
        }
        fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
            match key {
                0x0a => r.merge_string(&mut self.name),
                _ => r.skip_field(key),
            }
        }
    }

    impl<'a> MessageView<'a> for NameView<'a> {
        type Owned = Name;
        fn size(&self) -> usize {
            self.to_owned_message().size()
        }
        fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
            if !self.name.is_empty() {
                w.put_string(self.name);
                w.put_u8(0x0a);
            }
        }
        fn merge_field(&mut self, key: u32, r: &mut Reader<'a>) -> Result<(), DecodeError> {
            match key {
                0x0a => {
                    self.name = r.read_str()?;
                    Ok(())
                }
                _ => r.skip_field(key),
            }
        }
        fn to_owned_message(&self) -> Name {
            Name {
                name: self.name.to_string(),
            }
        }
    }

    enum NameViewFamily {}

    impl ViewFamily for NameViewFamily {
        type View<'a> = NameView<'a>;
        fn shorten<'a, 'b: 'a>(view: &'a NameView<'b>) -> &'a NameView<'a> {
            view
        }
    }

    /// The lifetime extension in `OwnedView::decode`: the view reads the buffer after the
    /// caller's `Bytes` is gone, after moves and clones, and from another thread (run under
    /// Miri by `scripts/miri.sh`).
    #[test]
    fn an_owned_view_keeps_its_buffer_alive() {
        let bytes = Bytes::from(vec![0x0a, 0x05, b'h', b'e', b'l', b'l', b'o']);
        let owned = OwnedView::<NameViewFamily>::decode(bytes.clone()).unwrap();
        drop(bytes);
        let moved = Box::new(owned);
        let copy = (*moved).clone();
        drop(moved);
        let name = std::thread::spawn(move || copy.get().name.to_string())
            .join()
            .unwrap();
        assert_eq!(name, "hello");
        let view = OwnedView::<NameViewFamily>::decode(Bytes::from_static(b"\x0a\x02hi")).unwrap();
        assert_eq!(view.to_owned_message().name, "hi");
        assert_eq!(view.get().encode_to_vec(), b"\x0a\x02hi");
        assert!(OwnedView::<NameViewFamily>::decode(Bytes::from_static(b"\x0a\x05hi")).is_err());
    }
}
