//! Naming items from generated code: relative paths between the modules of a package (and to
//! other packages), the owned Rust type of a message wherever it comes from, and the nesting of
//! items into the modules they belong to. Shared by the features that declare items (`structs`,
//! `views`).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::ident::{ident, to_snake};
use crate::model::{Package, RustPath, TypeRef};
use crate::{Mode, Options};

/// Names as seen from the items generated for one package.
pub(super) struct Names<'a> {
    pub package: &'a Package,
    pub options: &'a Options,
}

impl Names<'_> {
    /// A path from module `from` (below the package module) to `target` in `package`.
    pub fn relative(&self, from: &[String], package: &str, target: &RustPath) -> TokenStream {
        let here: Vec<String> = self
            .package
            .module
            .segments
            .iter()
            .chain(from)
            .cloned()
            .collect();
        let there: Vec<String> = package
            .split('.')
            .filter(|s| !s.is_empty())
            .map(to_snake)
            .chain(target.segments.iter().cloned())
            .collect();
        let common = here
            .iter()
            .zip(&there)
            .take_while(|(a, b)| a == b)
            .count()
            .min(there.len() - 1);
        let up = (common..here.len()).map(|_| quote!(super::));
        let down = RustPath::new(there[common..].to_vec()).tokens();
        quote!(#(#up)* #down)
    }

    /// The owned type of message `t`, named from module `from`: the path of a type generated
    /// with this request, the mapped crate's for an extern one. Well-known types are prost's
    /// (`prost-types`, wrappers as Rust primitives) in `mode=prost`, and `vtproto::types` in
    /// `mode=standalone`, wrappers included.
    pub fn owned_type(&self, t: &TypeRef, from: &[String]) -> TokenStream {
        let fq = format!(".{}", t.full_name);
        if !self.options.is_extern(&fq) {
            return self.relative(from, &t.package, &t.rust_path);
        }
        // prost maps wrappers to primitives, dropping what they hold beside their value; our own
        // structs keep every message's unknown fields, so mode=standalone uses the structs.
        if let (Mode::Prost, Some(primitive)) = (self.options.mode, wkt_primitive(&t.full_name)) {
            return primitive;
        }
        let wkt_crate = match self.options.mode {
            Mode::Prost => "::prost_types",
            Mode::Standalone => "::vtproto::types",
        };
        let (proto, rust) = self
            .options
            .extern_path
            .iter()
            .filter(|(p, _)| fq == *p || fq.starts_with(&format!("{p}.")))
            .max_by_key(|(p, _)| p.len())
            .map(|(p, r)| (p.as_str(), r.as_str()))
            .unwrap_or((".google.protobuf", wkt_crate));
        // The configured prefix is a package (prefix of `t.package`): the rest of the package
        // becomes modules, then the message's own path.
        let package_rest = format!(".{}", t.package)
            .strip_prefix(proto)
            .map(|rest| {
                rest.split('.')
                    .filter(|s| !s.is_empty())
                    .map(to_snake)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let tail = RustPath::new(
            package_rest
                .into_iter()
                .chain(t.rust_path.segments.iter().cloned())
                .collect(),
        )
        .tokens();
        let rust: TokenStream = rust.parse().unwrap_or_else(|_| quote!(::prost_types));
        quote!(#rust::#tail)
    }
}

/// The Rust type prost-build maps a well-known wrapper (or `Empty`) to.
fn wkt_primitive(full_name: &str) -> Option<TokenStream> {
    Some(match full_name {
        "google.protobuf.BoolValue" => quote!(bool),
        "google.protobuf.BytesValue" => quote!(::std::vec::Vec<u8>),
        "google.protobuf.DoubleValue" => quote!(f64),
        "google.protobuf.FloatValue" => quote!(f32),
        "google.protobuf.Int32Value" => quote!(i32),
        "google.protobuf.Int64Value" => quote!(i64),
        "google.protobuf.StringValue" => quote!(::std::string::String),
        "google.protobuf.UInt32Value" => quote!(u32),
        "google.protobuf.UInt64Value" => quote!(u64),
        "google.protobuf.Empty" => quote!(()),
        _ => return None,
    })
}

/// Items by the module (below the package's) they are declared in.
pub(super) type Modules = BTreeMap<Vec<String>, Vec<TokenStream>>;

/// The items of module `at` and, nested, of the modules below it; `doc` documents a module
/// from its path.
pub(super) fn nest(
    modules: &Modules,
    at: &[String],
    doc: &dyn Fn(&[String]) -> String,
) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(items) = modules.get(at) {
        out.extend(items.iter().cloned());
    }
    let children: BTreeSet<&[String]> = modules
        .keys()
        .filter(|k| k.len() > at.len() && k.starts_with(at))
        .map(|k| &k[..=at.len()])
        .collect();
    for child in children {
        let name = ident(&child[at.len()]);
        let inner = nest(modules, child, doc);
        let text = doc(child);
        out.extend(quote! {
            #[doc = #text]
            pub mod #name {
                #inner
            }
        });
    }
    out
}
