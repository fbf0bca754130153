//! `Message` for `Box<M>` and for the Rust types prost maps well-known wrappers to.
//!
//! prost-build turns `google.protobuf.DoubleValue` into `f64`, `google.protobuf.Empty` into `()`
//! and so on, while keeping their message encoding (the value is field 1). Those impls live here
//! because generated code can't implement a trait it doesn't own for a type it doesn't own.

#[allow(unused_imports)]
use crate::prelude::*;

use crate::error::DecodeError;
use crate::reader::{wire_type_mismatch, Reader};
use crate::wire;
use crate::writer::ReverseWriter;
use crate::Message;

impl<M: Message> Message for Box<M> {
    const NAME: &'static str = M::NAME;
    #[inline]
    fn size(&self) -> usize {
        (**self).size()
    }
    #[inline]
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
        (**self).encode_reverse(w)
    }
    #[inline]
    fn size_walk_is_cheap(&self) -> bool {
        (**self).size_walk_is_cheap()
    }
    #[inline]
    fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        (**self).merge_field(key, r)
    }
    #[inline]
    fn merge_replace(&mut self, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        (**self).merge_replace(r)
    }
    #[inline]
    fn check_initialized(&self) -> Result<(), DecodeError> {
        (**self).check_initialized()
    }
    const FIELD_NAMES: &'static str = M::FIELD_NAMES;
    const SIZE_WALK_IS_CHEAP: bool = M::SIZE_WALK_IS_CHEAP;
    fn field_name(number: u32) -> &'static str {
        M::field_name(number)
    }
}

impl Message for () {
    const NAME: &'static str = "google.protobuf.Empty";
    const SIZE_WALK_IS_CHEAP: bool = true;
    fn size(&self) -> usize {
        0
    }
    fn encode_reverse(&self, _: &mut ReverseWriter<'_>) {}
    fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        r.skip_field(key)
    }
}

macro_rules! wrapper {
    ($ty:ty, $name:literal, $key:literal, $size:expr, $put:expr, $merge:expr, $nonzero:expr) => {
        impl Message for $ty {
            const NAME: &'static str = $name;
            #[inline]
            fn size(&self) -> usize {
                if $nonzero(self) {
                    1 + $size(self)
                } else {
                    0
                }
            }
            const SIZE_WALK_IS_CHEAP: bool = true;
            #[inline]
            fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
                if $nonzero(self) {
                    $put(w, self);
                    w.put_u8($key);
                }
            }
            fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
                match key {
                    $key => $merge(self, r),
                    _ if key >> 3 == 1 => Err(wire_type_mismatch(key)),
                    _ => r.skip_field(key),
                }
            }
            const FIELD_NAMES: &'static str = "1:value";
        }
    };
}

type W<'a, 'b> = &'a mut ReverseWriter<'b>;
type R<'a, 'b> = &'a mut Reader<'b>;

wrapper!(
    f64,
    "google.protobuf.DoubleValue",
    0x09,
    |_: &f64| 8,
    |w: W, v: &f64| w.put_double(*v),
    |v: &mut f64, r: R| {
        *v = r.read_double()?;
        Ok(())
    },
    |v: &f64| *v != 0.0
);
wrapper!(
    f32,
    "google.protobuf.FloatValue",
    0x0d,
    |_: &f32| 4,
    |w: W, v: &f32| w.put_float(*v),
    |v: &mut f32, r: R| {
        *v = r.read_float()?;
        Ok(())
    },
    |v: &f32| *v != 0.0
);
wrapper!(
    i64,
    "google.protobuf.Int64Value",
    0x08,
    |v: &i64| wire::int64(*v),
    |w: W, v: &i64| w.put_int64(*v),
    |v: &mut i64, r: R| {
        *v = r.read_int64()?;
        Ok(())
    },
    |v: &i64| *v != 0
);
wrapper!(
    u64,
    "google.protobuf.UInt64Value",
    0x08,
    |v: &u64| wire::uint64(*v),
    |w: W, v: &u64| w.put_uint64(*v),
    |v: &mut u64, r: R| {
        *v = r.read_uint64()?;
        Ok(())
    },
    |v: &u64| *v != 0
);
wrapper!(
    i32,
    "google.protobuf.Int32Value",
    0x08,
    |v: &i32| wire::int32(*v),
    |w: W, v: &i32| w.put_int32(*v),
    |v: &mut i32, r: R| {
        *v = r.read_int32()?;
        Ok(())
    },
    |v: &i32| *v != 0
);
wrapper!(
    u32,
    "google.protobuf.UInt32Value",
    0x08,
    |v: &u32| wire::uint32(*v),
    |w: W, v: &u32| w.put_uint32(*v),
    |v: &mut u32, r: R| {
        *v = r.read_uint32()?;
        Ok(())
    },
    |v: &u32| *v != 0
);
wrapper!(
    bool,
    "google.protobuf.BoolValue",
    0x08,
    |_: &bool| 1,
    |w: W, v: &bool| w.put_bool(*v),
    |v: &mut bool, r: R| {
        *v = r.read_bool()?;
        Ok(())
    },
    |v: &bool| *v
);
wrapper!(
    String,
    "google.protobuf.StringValue",
    0x0a,
    |v: &String| wire::len_delimited(v.len()),
    |w: W, v: &String| w.put_string(v),
    |v: &mut String, r: R| r.merge_string(v),
    |v: &String| !v.is_empty()
);
wrapper!(
    Vec<u8>,
    "google.protobuf.BytesValue",
    0x0a,
    |v: &Vec<u8>| wire::len_delimited(v.len()),
    |w: W, v: &Vec<u8>| w.put_bytes(v),
    |v: &mut Vec<u8>, r: R| r.merge_byte_vec(v),
    |v: &Vec<u8>| !v.is_empty()
);
