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
//! generated JSON instead (`serde_impls::serialize`), as does all of `Deserialize`
//! (`serde_impls::deserialize`: serde data written as JSON text, then read by `merge_json`).

use proc_macro2::TokenStream;
use quote::quote;

use super::json::{enum_path, nonzero, value_ref, NULL_VALUE};
use super::names::Names;
use super::Feature;
use crate::model::{Field, Label, Message, Oneof, Scalar, ValueType};

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

        impl<'de> #rt::serde::Deserialize<'de> for #path {
            fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: #rt::serde::Deserializer<'de>,
            {
                #rt::deserialize(deserializer)
            }
        }
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
