//! Each language's rules, and the grammar that parses it.

use tree_sitter::Node;

use crate::Language;
use crate::keep::Keep;

#[cfg(any(feature = "c", feature = "cpp"))]
mod c;
#[cfg(feature = "go")]
mod go;
#[cfg(feature = "java")]
mod java;
#[cfg(feature = "python")]
mod python;
#[cfg(feature = "rust")]
mod rust;
#[cfg(any(feature = "javascript", feature = "typescript"))]
mod script;

/// The compiled-in grammar of a language, if its feature is on.
pub(crate) fn grammar(language: Language) -> Option<tree_sitter::Language> {
    match language {
        #[cfg(feature = "rust")]
        Language::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
        #[cfg(feature = "python")]
        Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
        #[cfg(feature = "javascript")]
        Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
        #[cfg(feature = "typescript")]
        Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
        #[cfg(feature = "typescript")]
        Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
        #[cfg(feature = "go")]
        Language::Go => Some(tree_sitter_go::LANGUAGE.into()),
        #[cfg(feature = "java")]
        Language::Java => Some(tree_sitter_java::LANGUAGE.into()),
        #[cfg(feature = "c")]
        Language::C => Some(tree_sitter_c::LANGUAGE.into()),
        #[cfg(feature = "cpp")]
        Language::Cpp => Some(tree_sitter_cpp::LANGUAGE.into()),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Marks the kept lines of a clean tree in the language's rules.
pub(crate) fn walk(language: Language, keep: &mut Keep<'_>, root: Node<'_>) {
    match language {
        #[cfg(feature = "rust")]
        Language::Rust => rust::walk(keep, root),
        #[cfg(feature = "python")]
        Language::Python => python::walk(keep, root),
        #[cfg(feature = "javascript")]
        Language::JavaScript => script::walk(keep, root),
        #[cfg(feature = "typescript")]
        Language::TypeScript | Language::Tsx => script::walk(keep, root),
        #[cfg(feature = "go")]
        Language::Go => go::walk(keep, root),
        #[cfg(feature = "java")]
        Language::Java => java::walk(keep, root),
        #[cfg(feature = "c")]
        Language::C => c::walk(keep, root),
        #[cfg(feature = "cpp")]
        Language::Cpp => c::walk(keep, root),
        #[allow(unreachable_patterns)]
        _ => {}
    }
}
