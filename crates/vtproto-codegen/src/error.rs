//! The generator's one error type, shared by the plugin and the build crate.

use std::fmt;

/// Why generation failed, naming the option, feature or proto element concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A generator option (plugin parameter or build setting) that is not understood.
    Option {
        /// What is wrong with it.
        reason: String,
    },
    /// A feature name that is not one of the generator's features.
    UnknownFeature {
        /// The name asked for.
        name: String,
        /// The features there are.
        known: Vec<&'static str>,
    },
    /// A proto file, or an element in it, that can't be generated as asked.
    Proto {
        /// The file's name as the request gives it.
        file: String,
        /// The element's full proto name, when the problem is inside the file.
        element: Option<String>,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    pub(crate) fn option(reason: impl Into<String>) -> Error {
        Error::Option {
            reason: reason.into(),
        }
    }

    pub(crate) fn file(file: &str, reason: impl Into<String>) -> Error {
        Error::Proto {
            file: file.to_string(),
            element: None,
            reason: reason.into(),
        }
    }

    pub(crate) fn element(file: &str, element: &str, reason: impl Into<String>) -> Error {
        Error::Proto {
            file: file.to_string(),
            element: Some(element.to_string()),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Option { reason } => f.write_str(reason),
            Error::UnknownFeature { name, known } => {
                write!(f, "unknown feature `{name}` (known: {})", known.join(", "))
            }
            Error::Proto {
                file,
                element: Some(element),
                reason,
            } => write!(f, "{file}: {element}: {reason}"),
            Error::Proto {
                file,
                element: None,
                reason,
            } => write!(f, "{file}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}
