//! Enums as prost-build shapes them: a `#[repr(i32)]` Rust enum with one variant per number
//! (an alias is not a variant), the proto names both ways, and conversions from and to `i32`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::ident::ident;
use crate::model::Enum;

pub(super) fn enumeration(e: &Enum) -> TokenStream {
    let name = ident(e.rust_path.name());
    let doc = format!(" The enum `{}`.", e.full_name);
    let mut seen = Vec::new();
    let mut variants = Vec::new();
    let mut names = Vec::new();
    let mut numbers = Vec::new();
    for v in &e.values {
        if seen.contains(&v.number) {
            continue;
        }
        seen.push(v.number);
        let variant = ident(&v.variant);
        let n = Literal::i32_unsuffixed(v.number);
        let proto = &v.name;
        variants.push(quote!(#variant = #n,));
        names.push(quote!(Self::#variant => #proto,));
        numbers.push(quote!(#n => ::core::result::Result::Ok(Self::#variant),));
    }
    let from_names = e.values.iter().map(|v| {
        let proto = &v.name;
        let n = Literal::i32_unsuffixed(v.number);
        quote!(#proto => #n,)
    });
    let first = ident(&e.values[0].variant);
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i32)]
        pub enum #name {
            #(#variants)*
        }
        impl #name {
            /// The value's name in the `.proto` file.
            pub fn as_str_name(&self) -> &'static str {
                match self {
                    #(#names)*
                }
            }
            /// The value of a name in the `.proto` file (aliases included).
            pub fn from_str_name(value: &str) -> ::core::option::Option<Self> {
                let number = match value {
                    #(#from_names)*
                    _ => return ::core::option::Option::None,
                };
                Self::try_from(number).ok()
            }
        }
        impl ::core::default::Default for #name {
            fn default() -> Self {
                Self::#first
            }
        }
        impl ::core::convert::From<#name> for i32 {
            fn from(value: #name) -> i32 {
                value as i32
            }
        }
        impl ::core::convert::TryFrom<i32> for #name {
            type Error = ::vtproto::UnknownEnumValue;
            fn try_from(value: i32) -> ::core::result::Result<Self, ::vtproto::UnknownEnumValue> {
                match value {
                    #(#numbers)*
                    _ => ::core::result::Result::Err(::vtproto::UnknownEnumValue(value)),
                }
            }
        }
    }
}
