//! The `descriptors` feature: `pub const FILE_DESCRIPTOR_SET: &[u8]` in each package's module,
//! the encoded `FileDescriptorSet` of the package's files and everything they import (imports
//! first), for gRPC reflection (`tonic-reflection`'s `register_encoded_file_descriptor_set`)
//! or any other reader of descriptors. Opt-in (`features=..+descriptors`).

use proc_macro2::Literal;
use quote::quote;

use super::Feature;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "descriptors",
    emit: |package, _, out| {
        let bytes = Literal::byte_string(&package.descriptor_set);
        let doc = format!(
            " The encoded `FileDescriptorSet` of package `{}`'s files and their imports \
             ({} bytes), for gRPC reflection.",
            package.name,
            package.descriptor_set.len()
        );
        out(quote! {
            #[doc = #doc]
            pub const FILE_DESCRIPTOR_SET: &[u8] = #bytes;
        });
    },
};
