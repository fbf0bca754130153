//! Emitters: the model in, Rust tokens out. One module per generated method family; this module
//! holds what they share (keys as byte literals, per-scalar operations) and assembles the impls.
//!
//! Value expressions follow one convention: for `Copy` scalars a `v` token stream is the value
//! itself (`self.x`, `*v`); for strings, bytes and messages it is a place or a reference that
//! method calls auto-reference (`self.x`, `v`).

mod decode;
mod encode;
mod size;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::{BytesRepr, Label, Message, Scalar, ValueType};

/// Wire type numbers.
const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;
const START_GROUP: u32 = 3;
const END_GROUP: u32 = 4;
const FIXED32: u32 = 5;

/// `impl ::vtproto::Message for <message>`.
pub fn message_impl(m: &Message) -> TokenStream {
    let path = &m.rust_path;
    let name = &m.full_name;
    let size = size::size_fn(m);
    let encode = encode::encode_fn(m);
    let merge = decode::merge_field_fn(m);
    let names = field_name_fn(m);
    let deprecated = m
        .fields
        .iter()
        .chain(m.oneofs.iter().flat_map(|o| o.fields.iter()))
        .any(|f| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    let cheap = m.size_walk_is_cheap.then(|| size_walk_is_cheap_fn(m));
    quote! {
        #allow
        impl ::vtproto::Message for #path {
            const NAME: &'static str = #name;
            #cheap
            #size
            #encode
            #merge
            #names
        }
    }
}

/// `size_walk_is_cheap` of a message with no repeated or map field at any depth: true, or,
/// when it has recursive fields, true while they are all empty (a one-level value sizes
/// exactly; a deep one goes to the scratch buffer rather than walk every level twice).
fn size_walk_is_cheap_fn(m: &Message) -> TokenStream {
    let fields = m.fields.iter().filter(|f| f.recursive).map(|f| {
        let ident = &f.ident;
        match f.label {
            Label::Optional => quote!(self.#ident.is_none()),
            _ => quote!(false),
        }
    });
    let oneofs = m
        .oneofs
        .iter()
        .filter(|o| o.fields.iter().any(|f| f.recursive))
        .map(|o| {
            let ident = &o.ident;
            quote!(self.#ident.is_none())
        });
    let empty: Vec<TokenStream> = fields.chain(oneofs).collect();
    let body = if empty.is_empty() {
        quote!(true)
    } else {
        quote!(#(#empty)&&*)
    };
    quote! {
        #[inline]
        fn size_walk_is_cheap(&self) -> bool {
            #body
        }
    }
}

fn field_name_fn(m: &Message) -> TokenStream {
    let arms = m
        .fields
        .iter()
        .chain(m.oneofs.iter().flat_map(|o| o.fields.iter()))
        .map(|f| {
            let n = Literal::u32_unsuffixed(f.number);
            let name = &f.name;
            quote!(#n => #name,)
        });
    quote! {
        fn field_name(number: u32) -> &'static str {
            match number {
                #(#arms)*
                _ => "?",
            }
        }
    }
}

fn wire_type(v: &ValueType) -> u32 {
    match v {
        ValueType::Message => LEN,
        ValueType::Group => START_GROUP,
        ValueType::Scalar(s) => scalar_wire_type(*s),
    }
}

fn scalar_wire_type(s: Scalar) -> u32 {
    match s {
        Scalar::Double | Scalar::Fixed64 | Scalar::Sfixed64 => FIXED64,
        Scalar::Float | Scalar::Fixed32 | Scalar::Sfixed32 => FIXED32,
        Scalar::String | Scalar::Bytes => LEN,
        _ => VARINT,
    }
}

/// The varint bytes of a key, computed at generation time.
fn key_bytes(number: u32, wire_type: u32) -> Vec<u8> {
    let mut v = (u64::from(number) << 3) | u64::from(wire_type);
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// The key as a `u32` literal, as the decoder's `match` sees it.
fn key_literal(number: u32, wire_type: u32) -> Literal {
    Literal::u32_unsuffixed((number << 3) | wire_type)
}

fn key_len(number: u32) -> usize {
    key_bytes(number, 0).len()
}

/// Writes a key: one `put_u8` or one `put_slice` of a literal array.
fn put_key(number: u32, wire_type: u32) -> TokenStream {
    let bytes = key_bytes(number, wire_type);
    if let [b] = bytes[..] {
        let b = Literal::u8_unsuffixed(b);
        quote!(w.put_u8(#b);)
    } else {
        let bs = bytes.iter().map(|b| Literal::u8_unsuffixed(*b));
        quote!(w.put_slice(&[#(#bs),*]);)
    }
}

/// A key as a byte-array expression, `&[0x0a]`.
fn key_array(number: u32, wire_type: u32) -> TokenStream {
    let bs = key_bytes(number, wire_type)
        .into_iter()
        .map(Literal::u8_unsuffixed);
    quote!(&[#(#bs),*])
}

fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

fn is_copy(s: Scalar) -> bool {
    !matches!(s, Scalar::String | Scalar::Bytes)
}

fn fixed_width(s: Scalar) -> Option<usize> {
    match s {
        Scalar::Double | Scalar::Fixed64 | Scalar::Sfixed64 => Some(8),
        Scalar::Float | Scalar::Fixed32 | Scalar::Sfixed32 => Some(4),
        Scalar::Bool => Some(1),
        _ => None,
    }
}

/// Name suffix of the writer's and reader's method for a scalar (`put_<x>`, `read_<x>`).
fn scalar_method(s: Scalar) -> &'static str {
    match s {
        Scalar::Double => "double",
        Scalar::Float => "float",
        Scalar::Int64 => "int64",
        Scalar::Uint64 => "uint64",
        Scalar::Int32 | Scalar::Enum => "int32",
        Scalar::Fixed64 => "fixed64",
        Scalar::Fixed32 => "fixed32",
        Scalar::Bool => "bool",
        Scalar::String => "string",
        Scalar::Bytes => "bytes",
        Scalar::Uint32 => "uint32",
        Scalar::Sfixed32 => "sfixed32",
        Scalar::Sfixed64 => "sfixed64",
        Scalar::Sint32 => "sint32",
        Scalar::Sint64 => "sint64",
    }
}

fn method(prefix: &str, s: Scalar) -> proc_macro2::Ident {
    quote::format_ident!("{}_{}", prefix, scalar_method(s))
}

/// The Rust type of a scalar as prost stores it.
fn scalar_type(s: Scalar, bytes: BytesRepr) -> TokenStream {
    match s {
        Scalar::Double => quote!(f64),
        Scalar::Float => quote!(f32),
        Scalar::Int64 | Scalar::Sfixed64 | Scalar::Sint64 => quote!(i64),
        Scalar::Uint64 | Scalar::Fixed64 => quote!(u64),
        Scalar::Int32 | Scalar::Sfixed32 | Scalar::Sint32 | Scalar::Enum => quote!(i32),
        Scalar::Uint32 | Scalar::Fixed32 => quote!(u32),
        Scalar::Bool => quote!(bool),
        Scalar::String => quote!(::std::string::String),
        Scalar::Bytes => match bytes {
            BytesRepr::Vec => quote!(::std::vec::Vec<u8>),
            BytesRepr::Bytes => quote!(::vtproto::bytes::Bytes),
        },
    }
}

/// Whether a value differs from the type's default (proto3 implicit presence, map entries).
fn nonzero(s: Scalar, v: &TokenStream) -> TokenStream {
    match s {
        Scalar::Double | Scalar::Float => quote!(#v != 0.0),
        Scalar::Bool => quote!(#v),
        Scalar::String | Scalar::Bytes => quote!(!#v.is_empty()),
        _ => quote!(#v != 0),
    }
}

/// Encoded size of one scalar value, without its key.
fn scalar_size(s: Scalar, v: &TokenStream) -> TokenStream {
    if let Some(w) = fixed_width(s) {
        let w = usize_lit(w);
        return quote!(#w);
    }
    match s {
        Scalar::String | Scalar::Bytes => quote!(::vtproto::wire::len_delimited(#v.len())),
        _ => {
            let f = quote::format_ident!("{}", scalar_method(s));
            quote!(::vtproto::wire::#f(#v))
        }
    }
}

/// Writes one scalar value, without its key.
fn put_scalar(s: Scalar, v: &TokenStream) -> TokenStream {
    let m = method("put", s);
    quote!(w.#m(#v);)
}

/// Like [`put_scalar`] for a value named by a place (`self.x`), borrowed if not `Copy`.
fn put_scalar_place(s: Scalar, place: &TokenStream) -> TokenStream {
    if is_copy(s) {
        put_scalar(s, place)
    } else {
        put_scalar(s, &quote!(&#place))
    }
}

/// Where a decoded value goes.
enum Dst {
    /// A place expression of type `T` (`self.x`).
    Place(TokenStream),
    /// An expression of type `&mut T`.
    MutRef(TokenStream),
}

/// An expression reading one scalar value as a new owned value.
fn read_scalar(s: Scalar, bytes: BytesRepr) -> TokenStream {
    match (s, bytes) {
        (Scalar::Bytes, BytesRepr::Vec) => quote!(r.read_byte_vec()?),
        (Scalar::Bytes, BytesRepr::Bytes) => quote!(r.read_bytes()?),
        _ => {
            let m = method("read", s);
            quote!(r.#m()?)
        }
    }
}

/// A statement reading one scalar value into `dst`.
fn merge_scalar(s: Scalar, bytes: BytesRepr, dst: Dst) -> TokenStream {
    if is_copy(s) {
        let read = read_scalar(s, bytes);
        return match dst {
            Dst::Place(p) => quote!(#p = #read;),
            Dst::MutRef(p) => quote!(*#p = #read;),
        };
    }
    let dst = match dst {
        Dst::Place(p) => quote!(&mut #p),
        Dst::MutRef(p) => p,
    };
    match (s, bytes) {
        (Scalar::String, _) => quote!(r.merge_string(#dst)?;),
        (Scalar::Bytes, BytesRepr::Vec) => quote!(r.merge_byte_vec(#dst)?;),
        _ => quote!(r.merge_bytes(#dst)?;),
    }
}
