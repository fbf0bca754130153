//! Features: the model in, Rust tokens out. Each generated feature is one module under `emit/`
//! with one entry point, registered in [`FEATURES`]; the options select which run. This module
//! holds the registry and what every feature shares: wire types, keys computed at generation
//! time, the Rust type of a scalar.
//!
//! Adding a feature: a module here, a line in [`FEATURES`], a golden file
//! (`crates/vtproto-codegen/tests/golden/<feature>/`).

mod codec;
mod connect;
mod descriptors;
mod json;
mod names;
mod reflect;
mod serde;
mod services;
mod structs;
mod text;
mod views;

pub use views::view_path;

use proc_macro2::{Literal, TokenStream};
use quote::{quote, ToTokens};

use crate::model::{BytesRepr, DefaultValue, Field, Package, Scalar, ValueType};
use crate::{Error, Options};

/// A generated feature.
pub(crate) struct Feature {
    /// The name options select it by.
    pub name: &'static str,
    /// The feature's code for one package, handed to the sink an item (or a few) at a time,
    /// so that the generator holds the tokens of one item, not of a whole package.
    pub emit: fn(&Package, &Options, &mut dyn FnMut(TokenStream)),
}

/// Every feature, in the order their code is written to a file.
const FEATURES: &[Feature] = &[
    structs::FEATURE,
    codec::FEATURE,
    codec::REUSE,
    views::FEATURE,
    json::FEATURE,
    serde::FEATURE,
    text::FEATURE,
    services::FEATURE,
    connect::FEATURE,
    descriptors::FEATURE,
    reflect::FEATURE,
];

/// Checks that the features `options` select can work together: views need the codec (a
/// view's owned message implements `vtproto::Message`). The golden tests generate a feature
/// alone, so [`select`] does not insist.
pub(crate) fn check_dependencies(options: &Options) -> Result<(), Error> {
    let names: Vec<&str> = select(options)?.iter().map(|f| f.name).collect();
    if names.contains(&codec::REUSE.name) && !names.contains(&codec::FEATURE.name) {
        return Err(Error::option(
            "the reuse feature needs the codec feature (`features=codec+reuse`): it adds \
             merge_replace to the codec's impls",
        ));
    }
    if names.contains(&views::FEATURE.name) && !names.contains(&codec::FEATURE.name) {
        return Err(Error::option(
            "the views feature needs the codec feature (`features=codec+views`): a view's \
             owned message implements vtproto::Message",
        ));
    }
    if names.contains(&json::FEATURE.name) && !names.contains(&codec::FEATURE.name) {
        return Err(Error::option(
            "the json feature needs the codec feature (`features=codec+json`): an `Any` \
             holds a message's binary form",
        ));
    }
    if names.contains(&serde::FEATURE.name) && !names.contains(&json::FEATURE.name) {
        return Err(Error::option(
            "the serde feature needs the json feature (`features=codec+json+serde`): its \
             impls go through the generated JSON",
        ));
    }
    if names.contains(&text::FEATURE.name) && !names.contains(&codec::FEATURE.name) {
        return Err(Error::option(
            "the text feature needs the codec feature (`features=codec+text`): an `Any` \
             holds a message's binary form",
        ));
    }
    if names.contains(&connect::FEATURE.name) && !names.contains(&services::FEATURE.name) {
        return Err(Error::option(
            "the connect feature needs the services feature (`features=..+services+connect`): \
             it serves the server trait tonic's stubs declare",
        ));
    }
    if names.contains(&reflect::FEATURE.name) && !names.contains(&codec::FEATURE.name) {
        return Err(Error::option(
            "the reflect feature needs the codec feature (`features=codec+reflect`): the \
             extensions and unknown fields of a converted message go through its decoder",
        ));
    }
    Ok(())
}

/// Whether `options` select the feature named `name`.
pub(crate) fn is_selected(options: &Options, name: &str) -> bool {
    select(options).is_ok_and(|features| features.iter().any(|f| f.name == name))
}

/// Whether `json` or `text` has enum name lookups to write for the package (its enums are
/// this crate's): the package then gets a file, with or without them (see
/// [`reads_enum_names`]), so that where it is included does not depend on `tables=`.
pub(crate) fn json_enum_lookups(package: &Package, options: &Options) -> bool {
    !package.enums.is_empty()
        && (is_selected(options, json::FEATURE.name) || is_selected(options, text::FEATURE.name))
        && !json::foreign_enums(&package.name, options)
}

/// Whether generated code reads enum names (`from_json_name`): the JSON and text code of
/// messages the reflection tables do not serve, and the `serde` impls. With `tables=.` and
/// no `serde`, the tables read every name from the pool and no lookup is written, so code
/// generated in another run, without `tables=.`, cannot read these enums' names: give every
/// run of a crate the same `tables=`.
pub(crate) fn reads_enum_names(options: &Options) -> bool {
    !options.tables_serve_all() || is_selected(options, serde::FEATURE.name)
}

/// The names of the generator's features, for `features=a+b`.
pub fn feature_names() -> Vec<&'static str> {
    FEATURES.iter().map(|f| f.name).collect()
}

/// The features `options` select (the mode's defaults when it names none, plus `views` when
/// view paths are given), in registry order.
pub(crate) fn select(options: &Options) -> Result<Vec<&'static Feature>, Error> {
    let mut names: Vec<&str> = if options.features.is_empty() {
        options.mode.default_features().to_vec()
    } else {
        options.features.iter().map(String::as_str).collect()
    };
    if !options.views.is_empty() {
        names.push(views::FEATURE.name);
    }
    if let Some(unknown) = names
        .iter()
        .find(|n| !FEATURES.iter().any(|f| f.name == **n))
    {
        return Err(Error::UnknownFeature {
            name: unknown.to_string(),
            known: feature_names(),
        });
    }
    Ok(FEATURES
        .iter()
        .filter(|f| names.contains(&f.name))
        .collect())
}

/// Wire type numbers.
const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;
const START_GROUP: u32 = 3;
const END_GROUP: u32 = 4;
const FIXED32: u32 = 5;

fn wire_type(v: &ValueType) -> u32 {
    match v {
        ValueType::Message(_) => LEN,
        ValueType::Group(_) => START_GROUP,
        ValueType::Scalar(s) => scalar_wire_type(*s),
        ValueType::Enum(_) => VARINT,
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

fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// Whether values of the scalar are `Copy` (not strings or bytes).
fn is_copy(s: Scalar) -> bool {
    !matches!(s, Scalar::String | Scalar::Bytes)
}

/// The encoded width of a fixed-size scalar.
fn fixed_width(s: Scalar) -> Option<usize> {
    match s {
        Scalar::Double | Scalar::Fixed64 | Scalar::Sfixed64 => Some(8),
        Scalar::Float | Scalar::Fixed32 | Scalar::Sfixed32 => Some(4),
        Scalar::Bool => Some(1),
        _ => None,
    }
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

/// `-x`.
trait Neg {
    fn neg(self) -> TokenStream;
}

impl Neg for TokenStream {
    fn neg(self) -> TokenStream {
        quote!(-#self)
    }
}

/// A field's declared default (see [`Field::default`]) as an expression of its Rust type:
/// the owned type, or with `view` the view's (`&str`, `&[u8]`). `None` for the type's zero.
fn default_expr(f: &Field, view: bool) -> Option<TokenStream> {
    let s = f.value.scalar()?;
    let ty = scalar_type(s, BytesRepr::Vec);
    Some(match f.default.as_ref()? {
        DefaultValue::Int(i) => {
            // A literal and its sign as separate tokens, as the parser expects them.
            let wide = matches!(s, Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64);
            let narrow = |v: i64| i32::try_from(v).ok();
            match (*i, wide) {
                (i64::MIN, true) => quote!(i64::MIN),
                (i, true) if i < 0 => Literal::i64_suffixed(-i).into_token_stream().neg(),
                (i, true) => Literal::i64_suffixed(i).into_token_stream(),
                (i, false) if i == i64::from(i32::MIN) => quote!(i32::MIN),
                (i, false) if i < 0 => Literal::i32_suffixed(narrow(-i)?).into_token_stream().neg(),
                (i, false) => Literal::i32_suffixed(narrow(i)?).into_token_stream(),
            }
        }
        DefaultValue::Uint(u) => match s {
            Scalar::Uint64 | Scalar::Fixed64 => Literal::u64_suffixed(*u),
            _ => Literal::u32_suffixed(u32::try_from(*u).ok()?),
        }
        .into_token_stream(),
        DefaultValue::Float(x) if x.is_nan() => quote!(#ty::NAN),
        DefaultValue::Float(x) if x.is_infinite() && *x > 0.0 => quote!(#ty::INFINITY),
        DefaultValue::Float(x) if x.is_infinite() => quote!(#ty::NEG_INFINITY),
        DefaultValue::Float(x) => {
            let lit = if s == Scalar::Float {
                Literal::f32_suffixed(x.abs() as f32)
            } else {
                Literal::f64_suffixed(x.abs())
            };
            let lit = lit.into_token_stream();
            if x.is_sign_negative() {
                lit.neg()
            } else {
                lit
            }
        }
        DefaultValue::Bool(b) => quote!(#b),
        DefaultValue::String(text) if view => quote!(#text),
        DefaultValue::String(text) => quote!(::std::string::String::from(#text)),
        DefaultValue::Bytes(b) => {
            let lit = Literal::byte_string(b);
            match (view, f.bytes) {
                (true, _) => quote!(&#lit[..]),
                (false, BytesRepr::Vec) => quote!(#lit.to_vec()),
                (false, BytesRepr::Bytes) => quote!(::vtproto::bytes::Bytes::from_static(#lit)),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_varints() {
        assert_eq!(key_bytes(1, LEN), [0x0a]);
        assert_eq!(key_bytes(15, VARINT), [0x78]);
        assert_eq!(key_bytes(16, VARINT), [0x80, 0x01]);
        assert_eq!(
            key_bytes((1 << 29) - 1, FIXED32),
            [0xfd, 0xff, 0xff, 0xff, 0x0f]
        );
        assert_eq!(key_len(2047), 2);
        assert_eq!(key_len(2048), 3);
    }

    #[test]
    fn default_features_per_mode() {
        let picked = select(&Options::default()).unwrap();
        let names: Vec<&str> = picked.iter().map(|f| f.name).collect();
        assert_eq!(names, crate::Mode::Prost.default_features());
        let err = select(&Options {
            features: vec!["codec".into(), "json5".into()],
            ..Options::default()
        })
        .err()
        .unwrap();
        assert!(matches!(err, Error::UnknownFeature { name, .. } if name == "json5"));
    }
}
