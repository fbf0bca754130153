//! How `size` and `encode_reverse` reach a message's values, written once for both: the walk
//! over members, the presence check or `match` around each value, and the value's binding.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{is_copy, nonzero};
use crate::model::{Field, Label, MapField, MemberRef, Message, Oneof, Scalar, ValueType};

/// One present value of a field, as the code inside its presence check sees it.
pub(super) struct Value {
    /// The value, in the value convention of [`super`].
    pub v: TokenStream,
    /// Whether `v` names the field itself (`self.x`) rather than a bound reference.
    pub place: bool,
}

/// `field(f)` or `oneof(o)` for each member of `m`, in field-number order, or in the opposite
/// order with `reverse` (the backward writer's).
pub(super) fn members(
    m: &Message,
    reverse: bool,
    field: impl Fn(&Field) -> TokenStream,
    oneof: impl Fn(&Oneof) -> TokenStream,
) -> Vec<TokenStream> {
    let each = |member: MemberRef<'_>| match member {
        MemberRef::Field(f) => field(f),
        MemberRef::Oneof(o) => oneof(o),
    };
    if reverse {
        m.members().rev().map(each).collect()
    } else {
        m.members().map(each).collect()
    }
}

/// `v` bound by reference (`for v in ..`, `Some(v) = &..`) turned into the value convention.
pub(super) fn value_ref(value: &ValueType) -> TokenStream {
    match value.scalar() {
        Some(s) if is_copy(s) => quote!(*v),
        _ => quote!(v),
    }
}

/// `body` for the value of a singular field, inside the field's presence check: a test
/// against the default (implicit presence), none (required), or `if let Some(v)` (explicit).
pub(super) fn singular(f: &Field, body: impl FnOnce(&Value) -> TokenStream) -> TokenStream {
    let ident = &f.ident;
    match &f.label {
        Label::Implicit => {
            let s = f.value.scalar().expect("implicit presence is for scalars");
            let v = quote!(self.#ident);
            let cond = match s {
                Scalar::Float | Scalar::Double if f.zero_by_bits => quote!(#v.to_bits() != 0),
                _ => nonzero(s, &v),
            };
            let body = body(&Value { v, place: true });
            quote!(if #cond { #body })
        }
        Label::Required => {
            // Out-of-line calls take a reference; inline ones auto-reference the place.
            let v = if f.recursive {
                quote!(&self.#ident)
            } else {
                quote!(self.#ident)
            };
            body(&Value { v, place: true })
        }
        Label::Optional => {
            let body = body(&Value {
                v: value_ref(&f.value),
                place: false,
            });
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    #body
                }
            }
        }
        Label::Repeated { .. } | Label::Map(_) => unreachable!("{} is not singular", f.name),
    }
}

/// For a set oneof, `stmt(match o { .. })` with an arm per member: `arm(member, v)` says
/// whether the arm binds `v` and gives its body (an expression and a comma, or a block).
pub(super) fn oneof(
    o: &Oneof,
    stmt: impl FnOnce(TokenStream) -> TokenStream,
    arm: impl Fn(&Field, &TokenStream) -> (bool, TokenStream),
) -> TokenStream {
    let all: Vec<&Field> = o.fields.iter().collect();
    oneof_part(o, &all, stmt, arm)
}

/// [`oneof`] for some of its members (`fields`): other members match no arm.
pub(super) fn oneof_part(
    o: &Oneof,
    fields: &[&Field],
    stmt: impl FnOnce(TokenStream) -> TokenStream,
    arm: impl Fn(&Field, &TokenStream) -> (bool, TokenStream),
) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let arms = fields.iter().map(|f| {
        let variant = &f.ident;
        let (binds, body) = arm(f, &value_ref(&f.value));
        let bind = if binds { quote!(v) } else { quote!(_) };
        quote!(#path::#variant(#bind) => #body)
    });
    let rest = (fields.len() < o.fields.len()).then(|| quote!(_ => {}));
    let stmt = stmt(quote!(match o { #(#arms)* #rest }));
    quote! {
        if let ::core::option::Option::Some(o) = &self.#ident {
            #stmt
        }
    }
}

/// A map entry's key `k`, bound by reference, in the value convention.
pub(super) fn map_key(map: &MapField) -> TokenStream {
    if is_copy(map.key) {
        quote!(*k)
    } else {
        quote!(k)
    }
}

/// Whether a map entry's scalar value `v` is written: it differs from its type's default (an
/// enum's first declared number).
pub(super) fn map_value_nonzero(map: &MapField, v: &TokenStream) -> TokenStream {
    match &map.value {
        ValueType::Enum(e) => {
            let d = Literal::i32_unsuffixed(e.default);
            quote!(#v != #d)
        }
        value => nonzero(value.scalar().expect("a scalar map value"), v),
    }
}
