//! The `structs` feature (`mode=standalone`): the message structs, oneof enums and enums that
//! prost-build would generate for a package, with prost's names, field types and accessors,
//! plus each message's [`UnknownFields`](https://docs.rs/vtproto) — so that code written
//! against prost's structs compiles against ours with other imports.
//!
//! Messages are here (`struct`, `Default`, accessors), enums in `enums.rs`.

mod enums;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{nest, Modules, Names};
use super::{default_expr, scalar_type, Feature};
use crate::ident::ident;
use crate::model::{
    BytesRepr, EnumRef, Extension, Field, Label, Message, Oneof, Package, Scalar, ValueType,
};
use crate::Options;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "structs",
    emit: |package, options, out| out(emit(package, options)),
};

fn emit(package: &Package, options: &Options) -> TokenStream {
    let cx = Cx {
        names: Names { package, options },
    };
    let mut modules = Modules::new();
    for m in &package.messages {
        let module = parent(&m.rust_path.segments);
        let item = cx.message(m, &module);
        modules.entry(module).or_default().push(item);
        for o in &m.oneofs {
            let module = parent(&o.enum_path.segments);
            let item = cx.oneof(o, &module);
            modules.entry(module).or_default().push(item);
        }
    }
    for e in &package.enums {
        let module = parent(&e.rust_path.segments);
        modules
            .entry(module)
            .or_default()
            .push(enums::enumeration(e));
    }
    for x in &package.extensions {
        let module = parent(&x.rust_path.segments);
        if let Some(item) = cx.extension(x, &module) {
            modules.entry(module).or_default().push(item);
        }
    }
    nest(&modules, &[], &|path| {
        format!(
            " Nested messages, enums and oneofs of `{}`.",
            path.last().map_or("", String::as_str)
        )
    })
}

/// The module an item at `path` (below the package module) is declared in.
fn parent(path: &[String]) -> Vec<String> {
    path[..path.len() - 1].to_vec()
}

struct Cx<'a> {
    names: Names<'a>,
}

impl Cx<'_> {
    /// The Rust type of one value, named from module `from`.
    fn value_type(&self, value: &ValueType, bytes: BytesRepr, from: &[String]) -> TokenStream {
        match value {
            ValueType::Scalar(s) => scalar_type(*s, bytes),
            ValueType::Enum(_) => quote!(i32),
            ValueType::Message(t) | ValueType::Group(t) => self.names.owned_type(t, from),
        }
    }

    /// A field's (or oneof variant's) type, boxed where prost boxes.
    fn boxed_value(&self, f: &Field, from: &[String]) -> TokenStream {
        let value = self.value_type(&f.value, f.bytes, from);
        if f.boxed {
            quote!(::std::boxed::Box<#value>)
        } else {
            value
        }
    }

    fn field_type(&self, f: &Field, from: &[String]) -> TokenStream {
        let value = self.boxed_value(f, from);
        match &f.label {
            Label::Implicit | Label::Required => value,
            Label::Optional => quote!(::core::option::Option<#value>),
            Label::Repeated { .. } => quote!(::std::vec::Vec<#value>),
            Label::Map(map) => {
                let k = self.value_type(&ValueType::Scalar(map.key), BytesRepr::Vec, from);
                let v = self.value_type(&map.value, map.value_bytes, from);
                if map.btree {
                    quote!(::std::collections::BTreeMap<#k, #v>)
                } else {
                    quote!(::std::collections::HashMap<#k, #v>)
                }
            }
        }
    }

    fn message(&self, m: &Message, module: &[String]) -> TokenStream {
        let name = ident(m.rust_path.name());
        let doc = format!(" The message `{}`.", m.full_name);
        let fields = m.fields.iter().map(|f| {
            let ident = &f.ident;
            let ty = self.field_type(f, module);
            let deprecated = f.deprecated.then(|| quote!(#[deprecated]));
            quote!(#deprecated pub #ident: #ty,)
        });
        let oneofs = m.oneofs.iter().map(|o| {
            let ident = &o.ident;
            let path = self
                .names
                .relative(module, &self.names.package.name, &o.enum_path);
            quote!(pub #ident: ::core::option::Option<#path>,)
        });
        let unknown = m.unknown_fields.as_ref().map(|u| {
            quote! {
                #[doc = " Fields this schema does not declare, and extensions, in wire order."]
                pub #u: ::vtproto::UnknownFields,
            }
        });
        let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
        let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
        // proto2 `required` fields start at their declared defaults, as prost's do.
        let default_of = |f: &Field| {
            (f.label == Label::Required)
                .then(|| default_expr(f, false))
                .flatten()
        };
        let (derive_default, default_impl) = if m.fields.iter().all(|f| default_of(f).is_none()) {
            (Some(quote!(Default,)), None)
        } else {
            let fields = m.fields.iter().map(|f| {
                let ident = &f.ident;
                let value =
                    default_of(f).unwrap_or_else(|| quote!(::core::default::Default::default()));
                quote!(#ident: #value,)
            });
            let oneofs = m.oneofs.iter().map(|o| {
                let ident = &o.ident;
                quote!(#ident: ::core::option::Option::None,)
            });
            let unknown = m
                .unknown_fields
                .as_ref()
                .map(|u| quote!(#u: ::vtproto::UnknownFields::new(),));
            let impl_ = quote! {
                #allow
                impl ::core::default::Default for #name {
                    fn default() -> Self {
                        #name {
                            #(#fields)*
                            #(#oneofs)*
                            #unknown
                        }
                    }
                }
            };
            (None, Some(impl_))
        };
        let accessors = self.accessors(m, module);
        let extendable = match (&m.unknown_fields, m.extendable) {
            (Some(u), true) => {
                let set = m.message_set;
                Some(quote! {
                    impl ::vtproto::Extendable for #name {
                        const MESSAGE_SET: bool = #set;
                        fn unknown_fields(&self) -> &::vtproto::UnknownFields {
                            &self.#u
                        }
                        fn unknown_fields_mut(&mut self) -> &mut ::vtproto::UnknownFields {
                            &mut self.#u
                        }
                    }
                })
            }
            _ => None,
        };
        quote! {
            #[doc = #doc]
            #allow
            #[derive(Clone, PartialEq, Debug, #derive_default)]
            pub struct #name {
                #(#fields)*
                #(#oneofs)*
                #unknown
            }
            #default_impl
            #accessors
            #extendable
        }
    }

    /// `pub const NAME: Extension<Extendee, Kind>`; `None` when the extendee is another
    /// crate's (the descriptor options custom options extend, say), which can't be named here.
    fn extension(&self, x: &Extension, module: &[String]) -> Option<TokenStream> {
        if self
            .names
            .options
            .is_extern(&format!(".{}", x.extendee.full_name))
        {
            return None;
        }
        let name = ident(x.rust_path.name());
        let extendee = self.names.owned_type(&x.extendee, module);
        let f = &x.field;
        // A closed enum keeps the numbers it does not declare among the unknown fields.
        let marker = |value: &ValueType| match value {
            ValueType::Enum(e) if e.closed => {
                let t = self.names.owned_type(&e.ty, module);
                Some(quote!(::vtproto::ext::ClosedEnum<#t>))
            }
            value => Some(scalar_marker(value.scalar()?)),
        };
        let kind = match (&f.label, &f.value) {
            (Label::Repeated { packed }, ValueType::Scalar(_) | ValueType::Enum(_)) => {
                let one = marker(&f.value)?;
                if *packed {
                    quote!(::vtproto::ext::Packed<#one>)
                } else {
                    quote!(::vtproto::ext::Repeated<#one>)
                }
            }
            (Label::Repeated { .. }, ValueType::Message(t)) => {
                let t = self.names.owned_type(t, module);
                quote!(::vtproto::ext::RepeatedMessage<#t>)
            }
            (Label::Repeated { .. }, ValueType::Group(t)) => {
                let t = self.names.owned_type(t, module);
                quote!(::vtproto::ext::RepeatedGroup<#t>)
            }
            (_, ValueType::Message(t)) => {
                let t = self.names.owned_type(t, module);
                quote!(::vtproto::ext::MessageOf<#t>)
            }
            (_, ValueType::Group(t)) => {
                let t = self.names.owned_type(t, module);
                quote!(::vtproto::ext::GroupOf<#t>)
            }
            (_, value) => marker(value)?,
        };
        let number = proc_macro2::Literal::u32_unsuffixed(f.number);
        let full = &x.full_name;
        let doc = format!(" The extension `{full}` (field {}).", f.number);
        Some(quote! {
            #[doc = #doc]
            pub const #name: ::vtproto::Extension<#extendee, #kind> =
                ::vtproto::Extension::new(#number, #full);
        })
    }

    fn oneof(&self, o: &Oneof, module: &[String]) -> TokenStream {
        let name = ident(o.enum_path.name());
        let doc = format!(" The oneof `{}`.", o.name);
        let variants = o.fields.iter().map(|f| {
            let variant = &f.ident;
            let ty = self.boxed_value(f, module);
            let deprecated = f.deprecated.then(|| quote!(#[deprecated]));
            quote!(#deprecated #variant(#ty),)
        });
        quote! {
            #[doc = #doc]
            #[derive(Clone, PartialEq, Debug)]
            pub enum #name {
                #(#variants)*
            }
        }
    }

    /// prost's accessors: for an optional scalar, its value or default; for an enum field,
    /// typed getters and setters.
    fn accessors(&self, m: &Message, module: &[String]) -> TokenStream {
        let methods: Vec<TokenStream> = m
            .fields
            .iter()
            .filter_map(|f| self.field_accessors(f, module))
            .collect();
        if methods.is_empty() {
            return TokenStream::new();
        }
        let name = ident(m.rust_path.name());
        let allow = m
            .all_fields()
            .any(|(_, f)| f.deprecated)
            .then(|| quote!(#[allow(deprecated)]));
        quote! {
            #allow
            impl #name {
                #(#methods)*
            }
        }
    }

    fn field_accessors(&self, f: &Field, module: &[String]) -> Option<TokenStream> {
        let ident = &f.ident;
        let bare = ident.to_string().trim_start_matches("r#").to_string();
        if let ValueType::Enum(e) = &f.value {
            let ty = self.names.owned_type(&e.ty, module);
            let default = enum_default(f, e, &ty);
            let set = format_ident!("set_{}", bare);
            let push = format_ident!("push_{}", bare);
            let get_doc = format!(
                " `{}` as the enum, or its default if the number is unknown.",
                f.name
            );
            return Some(match &f.label {
                Label::Implicit | Label::Required => quote! {
                    #[doc = #get_doc]
                    pub fn #ident(&self) -> #ty {
                        <#ty as ::core::convert::TryFrom<i32>>::try_from(self.#ident).unwrap_or(#default)
                    }
                    #[doc = " Sets the field to the enum value."]
                    pub fn #set(&mut self, value: #ty) {
                        self.#ident = value as i32;
                    }
                },
                Label::Optional => quote! {
                    #[doc = #get_doc]
                    pub fn #ident(&self) -> #ty {
                        self.#ident
                            .and_then(|v| <#ty as ::core::convert::TryFrom<i32>>::try_from(v).ok())
                            .unwrap_or(#default)
                    }
                    #[doc = " Sets the field to the enum value."]
                    pub fn #set(&mut self, value: #ty) {
                        self.#ident = ::core::option::Option::Some(value as i32);
                    }
                },
                Label::Repeated { .. } => quote! {
                    #[doc = " The values the enum declares, in order (unknown numbers skipped)."]
                    pub fn #ident(&self) -> impl ::core::iter::Iterator<Item = #ty> + '_ {
                        self.#ident
                            .iter()
                            .filter_map(|&v| <#ty as ::core::convert::TryFrom<i32>>::try_from(v).ok())
                    }
                    #[doc = " Appends an enum value."]
                    pub fn #push(&mut self, value: #ty) {
                        self.#ident.push(value as i32);
                    }
                },
                Label::Map(_) => return None,
            });
        }
        if f.label != Label::Optional {
            return None;
        }
        let s = f.value.scalar()?;
        let doc = format!(" `{}`, or its default when not set.", f.name);
        let (ty, body) = match s {
            Scalar::String => {
                let d = default_expr(f, true).unwrap_or_else(|| quote!(""));
                (
                    quote!(&str),
                    quote!(match &self.#ident {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #d,
                    }),
                )
            }
            Scalar::Bytes => {
                let d = default_expr(f, true).unwrap_or_else(|| quote!(&[]));
                (
                    quote!(&[u8]),
                    quote!(match &self.#ident {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #d,
                    }),
                )
            }
            _ => {
                let ty = scalar_type(s, f.bytes);
                let d = default_expr(f, false)
                    .unwrap_or_else(|| quote!(::core::default::Default::default()));
                (ty, quote!(self.#ident.unwrap_or(#d)))
            }
        };
        Some(quote! {
            #[doc = #doc]
            pub fn #ident(&self) -> #ty {
                #body
            }
        })
    }
}

/// The `vtproto::ext` marker of a scalar type.
fn scalar_marker(s: Scalar) -> TokenStream {
    let name = match s {
        Scalar::Double => "Double",
        Scalar::Float => "Float",
        Scalar::Int64 => "Int64",
        Scalar::Uint64 => "UInt64",
        Scalar::Int32 => "Int32",
        Scalar::Fixed64 => "Fixed64",
        Scalar::Fixed32 => "Fixed32",
        Scalar::Bool => "Bool",
        Scalar::String => "Str",
        Scalar::Bytes => "Bytes",
        Scalar::Uint32 => "UInt32",
        Scalar::Sfixed32 => "SFixed32",
        Scalar::Sfixed64 => "SFixed64",
        Scalar::Sint32 => "SInt32",
        Scalar::Sint64 => "SInt64",
        Scalar::Enum => "Enum",
    };
    let name = format_ident!("{}", name);
    quote!(::vtproto::ext::#name)
}

/// The enum value an enum field's getter falls back to: its declared default, else the
/// enum's first value.
fn enum_default(f: &Field, e: &EnumRef, ty: &TokenStream) -> TokenStream {
    let number = match &f.default {
        Some(crate::model::DefaultValue::Int(n)) => *n as i32,
        _ => e.default,
    };
    match e.values.iter().find(|(n, _)| *n == number) {
        Some((_, variant)) => {
            let v = ident(variant);
            quote!(#ty::#v)
        }
        None => quote!(::core::default::Default::default()),
    }
}
