//! The `serde` feature (with `json`): `serde::Serialize` and `serde::Deserialize` for each
//! message, with ProtoJSON's mapping (the default options: JSON names, no unpopulated fields,
//! enums by name), so that messages embed in users' serde types (axum's `Json`,
//! `serde_json::Value`, other self-describing serde formats).
//!
//! `Serialize` is generated field by field, as the `json` feature's `write_json` is: one
//! `serialize_map` per message, each key a literal, each value handed to the serializer
//! directly or through one of the runtime's wrappers (`vtproto::json::serde_impls`: 64-bit
//! integers as strings, floats' `NaN` and `Infinity`, base64, enum names, lists and maps). The
//! well-known types' special forms, `Any`, and messages with declared extensions go through the
//! generated JSON instead (`serde_impls::serialize`).
//!
//! `Deserialize` is generated field by field too: one `Visitor::visit_map` per message, a
//! `match` from key (JSON or proto name) to field, duplicates refused, each value read with
//! one of the runtime's seeds (`serde_impls::de`: 64-bit integers from strings or numbers,
//! base64, enum names, lists, string-keyed maps). A field of another form (a well-known type,
//! a closed enum in our structs, a map with non-string keys, a required message) is read by
//! the generated JSON (`de::fallback`: its value as JSON text, merged by `merge_json`); the
//! well-known types themselves and messages with declared extensions are read whole that way
//! (`serde_impls::deserialize`).

use proc_macro2::TokenStream;
use quote::quote;

use proc_macro2::Literal;

use super::json::{enum_path, foreign_enums, nonzero, null_is_value, value_ref, NULL_VALUE};
use super::names::Names;
use super::Feature;
use crate::model::{BytesRepr, Field, Label, Message, Oneof, Scalar, ValueType};

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "serde",
    emit: |package, options, out| {
        let names = Names { package, options };
        for m in &package.messages {
            out(message_impls(m, &names));
        }
    },
};

/// The runtime's module, where the wrappers are.
fn rt() -> TokenStream {
    quote!(::vtproto::json::serde_impls)
}

fn message_impls(m: &Message, names: &Names<'_>) -> TokenStream {
    let path = m.rust_path.tokens();
    let rt = rt();
    let through_json = m.full_name.starts_with("google.protobuf.") || !m.extensions.is_empty();
    let serialize = if through_json {
        quote!(#rt::serialize(self, serializer))
    } else {
        let members = m.members().map(|member| match member {
            crate::model::MemberRef::Field(f) => field(f, names),
            crate::model::MemberRef::Oneof(o) => oneof(o, names),
        });
        quote! {
            use #rt::serde::ser::SerializeMap as _;
            let mut map = serializer.serialize_map(::core::option::Option::None)?;
            #(#members)*
            map.end()
        }
    };
    let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    let deserialize = deserialize_impl(m, names, through_json);
    quote! {
        #allow
        impl #rt::serde::Serialize for #path {
            #[allow(unused_variables, unused_mut)]
            fn serialize<__S>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error>
            where
                __S: #rt::serde::Serializer,
            {
                #serialize
            }
        }

        #deserialize
    }
}

/// The `Deserialize` impl: generated field by field, or through the JSON (`through_json`).
fn deserialize_impl(m: &Message, names: &Names<'_>, through_json: bool) -> TokenStream {
    let path = m.rust_path.tokens();
    let rt = rt();
    let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    if through_json {
        return quote! {
            impl<'de> #rt::serde::Deserialize<'de> for #path {
                fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                where
                    __D: #rt::serde::Deserializer<'de>,
                {
                    #rt::deserialize(deserializer)
                }
            }
        };
    }
    let all: Vec<(Option<&Oneof>, &Field)> = m.all_fields().collect();
    let oneof_bit =
        |o: &Oneof| all.len() + m.oneofs.iter().position(|x| x.name == o.name).unwrap_or(0);
    let words = Literal::usize_unsuffixed((all.len() + m.oneofs.len()).div_ceil(64).max(1));
    let mut lookup = Vec::new();
    let mut arms = Vec::new();
    for (i, (oneof, f)) in all.iter().enumerate() {
        let index = Literal::usize_unsuffixed(i);
        let (json, proto) = (&f.json_name, &f.name);
        if json == proto {
            lookup.push(quote!(#json => #index,));
        } else {
            lookup.push(quote!(#json | #proto => #index,));
        }
        let body = match oneof {
            Some(o) => read_oneof_member(o, f, oneof_bit(o), names),
            None => read_field(f, names),
        };
        arms.push(quote!(#index => { #body }));
    }
    let expecting = format!("a JSON object for {}", m.full_name);
    let body = if all.is_empty() {
        quote! {
            if let ::core::option::Option::Some(key) = map.next_key::<__de::Key<'de>>()? {
                return ::core::result::Result::Err(__de::unknown_field(__NAME, key.as_str()));
            }
        }
    } else {
        quote! {
            let mut seen = [0u64; #words];
            while let ::core::option::Option::Some(key) = map.next_key::<__de::Key<'de>>()? {
                let key = key.as_str();
                let field: usize = match key {
                    #(#lookup)*
                    _ => return ::core::result::Result::Err(__de::unknown_field(__NAME, key)),
                };
                if !::vtproto::json::__private::first(&mut seen, field) {
                    return ::core::result::Result::Err(__de::duplicate_field(__NAME, key));
                }
                match field {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    };
    quote! {
        #allow
        impl<'de> #rt::serde::Deserialize<'de> for #path {
            fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: #rt::serde::Deserializer<'de>,
            {
                struct __Visitor;
                #allow
                impl<'de> #rt::serde::de::Visitor<'de> for __Visitor {
                    type Value = #path;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }
                    #[allow(unused_mut, unused_variables)]
                    fn visit_map<__A>(self, mut map: __A) -> ::core::result::Result<#path, __A::Error>
                    where
                        __A: #rt::serde::de::MapAccess<'de>,
                    {
                        use #rt::de as __de;
                        const __NAME: &str = <#path as ::vtproto::Message>::NAME;
                        let mut m: #path = ::core::default::Default::default();
                        #body
                        ::core::result::Result::Ok(m)
                    }
                }
                deserializer.deserialize_map(__Visitor)
            }
        }
    }
}

/// How a value a seed gives is stored in the field.
#[derive(Clone, Copy)]
enum Store {
    /// As it is.
    Same,
    /// As `bytes::Bytes` (the field's `bytes` representation).
    Bytes,
    /// In a `Box` (a recursive message field).
    Boxed,
}

impl Store {
    fn apply(self, v: TokenStream) -> TokenStream {
        match self {
            Store::Same => v,
            Store::Bytes => quote!(::vtproto::bytes::Bytes::from(#v)),
            Store::Boxed => quote!(::std::boxed::Box::new(#v)),
        }
    }
}

/// The seed reading one value of `value` (in `serde_impls::de`) and how its value is stored
/// (`bytes` and `boxed`: the field's representation); `None` for a form the generated JSON
/// reads instead.
fn seed(
    value: &ValueType,
    bytes: BytesRepr,
    boxed: bool,
    names: &Names<'_>,
) -> Option<(TokenStream, Store)> {
    let seed = match value {
        ValueType::Scalar(s) => match s {
            Scalar::Double => quote!(__de::F64),
            Scalar::Float => quote!(__de::F32),
            Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 => quote!(__de::I32),
            Scalar::Uint32 | Scalar::Fixed32 => quote!(__de::U32),
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => quote!(__de::I64),
            Scalar::Uint64 | Scalar::Fixed64 => quote!(__de::U64),
            Scalar::Bool => quote!(__de::Bool),
            Scalar::String => quote!(__de::Str),
            Scalar::Bytes => {
                let store = match bytes {
                    BytesRepr::Vec => Store::Same,
                    BytesRepr::Bytes => Store::Bytes,
                };
                return Some((quote!(__de::Bytes), store));
            }
            Scalar::Enum => return None,
        },
        ValueType::Enum(e) => {
            let closed_here = e.closed && names.options.mode == crate::Mode::Standalone;
            if e.ty.full_name == NULL_VALUE || closed_here {
                return None;
            }
            let path = enum_path(&e.ty, names);
            if names.options.is_extern(&format!(".{}", e.ty.full_name))
                || foreign_enums(&e.ty.package, names.options)
            {
                quote!(__de::Enum(|name| #path::from_str_name(name).map(|e| e as i32)))
            } else {
                quote!(__de::Enum(#path::from_json_name))
            }
        }
        ValueType::Message(t) | ValueType::Group(t) => {
            if t.full_name.starts_with("google.protobuf.")
                || names.options.is_extern(&format!(".{}", t.full_name))
            {
                return None;
            }
            let store = if boxed { Store::Boxed } else { Store::Same };
            return Some((quote!(__de::Msg::new()), store));
        }
    };
    Some((seed, Store::Same))
}

/// `seed` giving `None` for `null`: a scalar's in one call of the deserializer, a message's
/// through `Option`.
fn or_null(seed: TokenStream, message: bool) -> TokenStream {
    if message {
        quote!(__de::Nullable(#seed))
    } else {
        quote!(__de::ScalarOrNull(#seed))
    }
}

/// The generated JSON's reading of the field at `key` (see `de::fallback`).
fn fallback() -> TokenStream {
    quote!(__de::fallback(&mut map, &mut m, key)?;)
}

fn read_field(f: &Field, names: &Names<'_>) -> TokenStream {
    let ident = &f.ident;
    let typed = match &f.label {
        Label::Implicit | Label::Optional | Label::Required => {
            let is_message = matches!(f.value, ValueType::Message(_) | ValueType::Group(_));
            match seed(&f.value, f.bytes, f.boxed, names) {
                // A required message is a plain `T` in our structs, an `Option<T>` in prost's.
                Some(_) if is_message && !matches!(f.label, Label::Optional) => None,
                Some((seed, store)) => {
                    let v = store.apply(quote!(v));
                    let seed = or_null(seed, is_message);
                    let set = match f.label {
                        Label::Optional => quote!(m.#ident = ::core::option::Option::Some(#v);),
                        _ => quote!(m.#ident = #v;),
                    };
                    Some(quote! {
                        if let ::core::option::Option::Some(v) = map.next_value_seed(#seed)? {
                            #set
                        }
                    })
                }
                None => None,
            }
        }
        Label::Repeated { .. } => seed(&f.value, f.bytes, false, names).map(|(seed, store)| {
            let v = match store {
                Store::Same => quote!(v),
                _ => {
                    let each = store.apply(quote!(v));
                    quote!(v.into_iter().map(|v| #each).collect())
                }
            };
            quote! {
                if let ::core::option::Option::Some(v) =
                    map.next_value_seed(__de::Nullable(__de::List(#seed)))?
                {
                    m.#ident = #v;
                }
            }
        }),
        Label::Map(map) => match map.key {
            Scalar::String => {
                seed(&map.value, map.value_bytes, false, names).map(|(seed, store)| {
                    let v = store.apply(quote!(v));
                    quote! {
                        map.next_value_seed(__de::Nullable(__de::StrMap {
                            map: &mut m.#ident,
                            seed: #seed,
                            store: |v| #v,
                        }))?;
                    }
                })
            }
            _ => None,
        },
    };
    typed.unwrap_or_else(fallback)
}

/// A oneof member: `null` leaves it unset and does not count as the oneof's value.
fn read_oneof_member(o: &Oneof, f: &Field, bit: usize, names: &Names<'_>) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let variant = &f.ident;
    let bit = Literal::usize_unsuffixed(bit);
    let once = quote! {
        if !::vtproto::json::__private::first(&mut seen, #bit) {
            return ::core::result::Result::Err(__de::duplicate_field(__NAME, key));
        }
    };
    match seed(&f.value, f.bytes, f.boxed, names) {
        Some((seed, store)) => {
            let v = store.apply(quote!(v));
            let message = matches!(f.value, ValueType::Message(_) | ValueType::Group(_));
            let seed = or_null(seed, message);
            quote! {
                if let ::core::option::Option::Some(v) = map.next_value_seed(#seed)? {
                    #once
                    m.#ident = ::core::option::Option::Some(#path::#variant(#v));
                }
            }
        }
        // `null` is a value of `Value` and `NullValue` (forms read this way), of no other type.
        None if null_is_value(&f.value) => quote! {
            __de::fallback(&mut map, &mut m, key)?;
            #once
        },
        None => quote! {
            if !__de::fallback(&mut map, &mut m, key)? {
                #once
            }
        },
    }
}

/// A serializable expression for one value `v`: by value for `Copy` scalars; a place (`by_ref`
/// false) or a reference (`by_ref`) for strings, bytes and messages.
fn value(value: &ValueType, v: &TokenStream, by_ref: bool, names: &Names<'_>) -> TokenStream {
    let rt = rt();
    let r = if by_ref { quote!(#v) } else { quote!(&#v) };
    match value {
        ValueType::Scalar(s) => match s {
            Scalar::Double => quote!(#rt::Float(#v)),
            Scalar::Float => quote!(#rt::Float32(#v)),
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => quote!(#rt::Int64(#v)),
            Scalar::Uint64 | Scalar::Fixed64 => quote!(#rt::Uint64(#v)),
            Scalar::Bytes => quote!(#rt::Base64(::core::convert::AsRef::<[u8]>::as_ref(#r))),
            Scalar::String => quote!(::core::convert::AsRef::<str>::as_ref(#r)),
            // Numbers and bools as they are.
            _ => quote!(#v),
        },
        ValueType::Enum(e) if e.ty.full_name == NULL_VALUE => quote!(()),
        ValueType::Enum(e) => {
            let path = enum_path(&e.ty, names);
            quote!(#rt::EnumName(#v, #path::try_from(#v).ok().map(|e| e.as_str_name())))
        }
        ValueType::Message(t) | ValueType::Group(t) => {
            // The well-known types (their special forms, and prost-types' structs, which no
            // crate but serde's and prost's may give serde impls) through their JSON.
            if t.full_name.starts_with("google.protobuf.")
                || names.options.is_extern(&format!(".{}", t.full_name))
            {
                quote!(#rt::Json(#r))
            } else {
                r
            }
        }
    }
}

/// Whether [`value_ref`] gives a reference (else a `Copy` value).
fn is_ref(value: &ValueType) -> bool {
    !matches!(value.scalar(), Some(s) if !matches!(s, Scalar::String | Scalar::Bytes))
}

fn field(f: &Field, names: &Names<'_>) -> TokenStream {
    let ident = &f.ident;
    let key = &f.json_name;
    let rt = rt();
    match &f.label {
        Label::Implicit => {
            let v = quote!(self.#ident);
            let cond = nonzero(f, &v);
            let value = value(&f.value, &v, false, names);
            quote! {
                if #cond {
                    map.serialize_entry(#key, &#value)?;
                }
            }
        }
        Label::Required => {
            let value = value(&f.value, &quote!(self.#ident), false, names);
            quote!(map.serialize_entry(#key, &#value)?;)
        }
        Label::Optional => {
            let value = value(&f.value, &value_ref(&f.value), is_ref(&f.value), names);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    map.serialize_entry(#key, &#value)?;
                }
            }
        }
        Label::Repeated { .. } => {
            let value = value(&f.value, &value_ref(&f.value), is_ref(&f.value), names);
            quote! {
                if !self.#ident.is_empty() {
                    map.serialize_entry(#key, &#rt::each(&self.#ident, |v| #value))?;
                }
            }
        }
        // A string map serializes as itself (`HashMap`'s and `BTreeMap`'s impls write a JSON
        // object of strings): its own loop, as fast as pbjson's; through `entries` 10% slower.
        Label::Map(map)
            if map.key == Scalar::String && map.value.scalar() == Some(Scalar::String) =>
        {
            quote! {
                if !self.#ident.is_empty() {
                    map.serialize_entry(#key, &self.#ident)?;
                }
            }
        }
        Label::Map(map) => {
            let value = value(
                &map.value,
                &value_ref(&map.value),
                is_ref(&map.value),
                names,
            );
            let key_of = match map.key {
                Scalar::String => quote!(::core::convert::AsRef::<str>::as_ref(k)),
                _ => quote!(#rt::MapKey(*k)),
            };
            quote! {
                if !self.#ident.is_empty() {
                    map.serialize_entry(
                        #key,
                        &#rt::entries(&self.#ident, |k| #key_of, |v| #value),
                    )?;
                }
            }
        }
    }
}

fn oneof(o: &Oneof, names: &Names<'_>) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let arms = o.fields.iter().map(|f| {
        let variant = &f.ident;
        let key = &f.json_name;
        let value = value(&f.value, &value_ref(&f.value), is_ref(&f.value), names);
        quote!(#path::#variant(v) => map.serialize_entry(#key, &#value)?,)
    });
    quote! {
        if let ::core::option::Option::Some(o) = &self.#ident {
            match o {
                #(#arms)*
            }
        }
    }
}
