//! The `serde` feature (with `json`): `serde::Serialize` and `serde::Deserialize` for each
//! message, with ProtoJSON's mapping, so that messages embed in users' serde types (axum's
//! `Json`, `serde_json::Value`, other serde formats). Each impl is one call into the runtime
//! (`vtproto::json::serde_impls`), which goes through the message's generated JSON: the
//! mapping is the `json` feature's, option for option, and nothing is generated twice.

use quote::quote;

use super::Feature;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "serde",
    emit: |package, _options, out| {
        for m in &package.messages {
            let path = m.rust_path.tokens();
            out(quote! {
                impl ::vtproto::json::serde_impls::serde::Serialize for #path {
                    fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
                    where
                        S: ::vtproto::json::serde_impls::serde::Serializer,
                    {
                        ::vtproto::json::serde_impls::serialize(self, serializer)
                    }
                }

                impl<'de> ::vtproto::json::serde_impls::serde::Deserialize<'de> for #path {
                    fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                    where
                        D: ::vtproto::json::serde_impls::serde::Deserializer<'de>,
                    {
                        ::vtproto::json::serde_impls::deserialize(deserializer)
                    }
                }
            });
        }
    },
};
