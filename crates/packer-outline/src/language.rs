//! The languages that get outlines, named and recognised by extension.

/// A language with an outline grammar.
///
/// Every variant exists whatever the crate's features; a language whose
/// grammar feature is off parses by name and extension but gets no outline
/// ([`Language::has_grammar`] says which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Language {
    /// Rust (`.rs`).
    Rust,
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript, with JSX (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Go (`.go`).
    Go,
    /// Java (`.java`).
    Java,
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`).
    Cpp,
}

impl Language {
    /// Every language, in declaration order.
    pub const ALL: [Language; 9] = [
        Language::Rust,
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
    ];

    /// The language of a path by its extension (ASCII case-insensitive),
    /// or `None`. A `.h` header is taken as C: a C++ header named `.h`
    /// usually fails to parse as C and then gets no outline.
    pub fn from_path(path: &str) -> Option<Language> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (stem, extension) = name.rsplit_once('.')?;
        if stem.is_empty() {
            return None;
        }
        Language::from_extension(extension)
    }

    /// The language of an extension given without its dot (ASCII
    /// case-insensitive), or `None`.
    pub fn from_extension(extension: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|language| {
            language
                .extensions()
                .iter()
                .any(|known| known.eq_ignore_ascii_case(extension))
        })
    }

    /// The extensions recognised for the language, without their dots.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::Rust => &["rs"],
            Language::Python => &["py", "pyi"],
            Language::JavaScript => &["js", "mjs", "cjs", "jsx"],
            Language::TypeScript => &["ts", "mts", "cts"],
            Language::Tsx => &["tsx"],
            Language::Go => &["go"],
            Language::Java => &["java"],
            Language::C => &["c", "h"],
            Language::Cpp => &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        }
    }

    /// The language's name in lowercase: `rust`, `python`, `javascript`,
    /// `typescript`, `tsx`, `go`, `java`, `c`, `cpp`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
        }
    }

    /// The language named by [`Language::name`], or `None`.
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL
            .into_iter()
            .find(|language| language.name() == name)
    }

    /// Whether this build compiled the language's grammar in (its cargo
    /// feature); without it [`crate::outline`] returns `Ok(None)`.
    pub fn has_grammar(self) -> bool {
        match self {
            Language::Rust => cfg!(feature = "rust"),
            Language::Python => cfg!(feature = "python"),
            Language::JavaScript => cfg!(feature = "javascript"),
            Language::TypeScript | Language::Tsx => cfg!(feature = "typescript"),
            Language::Go => cfg!(feature = "go"),
            Language::Java => cfg!(feature = "java"),
            Language::C => cfg!(feature = "c"),
            Language::Cpp => cfg!(feature = "cpp"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_recognised_by_their_extension() {
        assert_eq!(Language::from_path("src/lib.rs"), Some(Language::Rust));
        assert_eq!(Language::from_path("a/b.PYI"), Some(Language::Python));
        assert_eq!(Language::from_path("x.cjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("x.mts"), Some(Language::TypeScript));
        assert_eq!(Language::from_path("x.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("x.h"), Some(Language::C));
        assert_eq!(Language::from_path("x.hh"), Some(Language::Cpp));
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path(".rs"), None);
        assert_eq!(Language::from_path("dir.rs/README"), None);
        assert_eq!(Language::from_path("x.md"), None);
    }

    #[test]
    fn every_language_is_found_by_its_name_and_extensions() {
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.name()), Some(language));
            for extension in language.extensions() {
                assert_eq!(Language::from_extension(extension), Some(language));
            }
        }
    }
}
