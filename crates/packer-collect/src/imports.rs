//! Which source files of a package the others import: the fan-in that puts
//! a package's core modules before its adapters, plugins and helpers.
//!
//! Read from import lines alone, the same way in every language: a line
//! whose first word is `import`, `from`, `use`, `mod` or `#include` (after
//! `pub`, `pub(crate)`, ...), an `export ... from` line, or one that calls
//! `require(`,
//! names the files whose stems are among its words (`from .console import`,
//! `import { HonoBase } from './hono-base'`, `use crate::walk::Walker`,
//! `#include "fmt/format.h"`, `import com.google.gson.internal.Excluder`).
//! A file counts once per importer, and only importers of its own package
//! count. No parse, so it costs one pass over the source's bytes.

use std::collections::HashMap;

use crate::value;

/// Stems every package has, which name no one file (entry points are
/// already first).
const COMMON_STEMS: [&str; 5] = ["index", "mod", "lib", "main", "__init__"];

/// For each of `files` (id and text), how many other files of its package
/// import it; 0 for a file that is not code (`code` false) or whose stem
/// names no one file.
pub fn fan_in(files: &[(&str, &str)], code: &[bool]) -> Vec<usize> {
    // Each (package, stem) names a group of owners.
    let mut by_stem: HashMap<(&str, &str), usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, (id, _)) in files.iter().enumerate() {
        if !code[index] {
            continue;
        }
        let stem = stem(id);
        if stem.is_empty() || COMMON_STEMS.contains(&stem) {
            continue;
        }
        let group = *by_stem
            .entry((value::package(id), stem))
            .or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
        groups[group].push(index);
    }
    let mut counts = vec![0; files.len()];
    if by_stem.is_empty() {
        return counts;
    }
    let dirs: Vec<&str> = files.iter().map(|(id, _)| directory(id)).collect();
    // The closest owners of a group seen from a directory, for importers
    // that are not themselves in the group (the answer is the same for
    // every such importer in that directory). Kept to a bounded size.
    let mut seen: HashMap<(&str, usize), Vec<usize>> = HashMap::new();
    let mut named: Vec<usize> = Vec::new();
    for (index, (id, text)) in files.iter().enumerate() {
        if !code[index] {
            continue;
        }
        let package = value::package(id);
        named.clear();
        for line in text.lines().filter(|line| is_import(line)) {
            for word in line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')) {
                let Some(&group) = by_stem.get(&(package, word)) else {
                    continue;
                };
                let owners = &groups[group];
                if owners.contains(&index) {
                    named.extend(closest(&dirs, owners, index));
                    continue;
                }
                if seen.len() >= MOST_SEEN {
                    seen.clear();
                }
                named.extend(
                    seen.entry((dirs[index], group))
                        .or_insert_with(|| closest(&dirs, owners, index))
                        .iter(),
                );
            }
        }
        named.sort_unstable();
        named.dedup();
        for &owner in &named {
            counts[owner] += 1;
        }
    }
    counts
}

/// At most this many (directory, group) answers are kept at once.
const MOST_SEEN: usize = 1 << 16;

/// A file's directory (`src/client` of `src/client/utils.ts`; empty at the
/// top).
fn directory(id: &str) -> &str {
    id.rsplit_once('/').map_or("", |(dirs, _)| dirs)
}

/// Of `owners` (files with one stem), those other than `index` whose
/// directory (in `dirs`) shares the most leading directories with
/// `index`'s: the `utils` an import beside `src/client/` means is
/// `src/client/utils.ts`.
fn closest(dirs: &[&str], owners: &[usize], index: usize) -> Vec<usize> {
    let here = dirs[index];
    let shared = |at: usize| {
        here.split('/')
            .zip(dirs[at].split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    };
    let others = owners.iter().copied().filter(|&owner| owner != index);
    let most = others.clone().map(shared).max().unwrap_or(0);
    others.filter(|&owner| shared(owner) == most).collect()
}

/// A file's name up to its first dot (`hono-base` of `src/hono-base.ts`).
fn stem(id: &str) -> &str {
    let name = id.rsplit_once('/').map_or(id, |(_, name)| name);
    name.split('.').next().unwrap_or(name)
}

/// Whether `line` imports, in one of the usual spellings.
fn is_import(line: &str) -> bool {
    let mut line = line.trim_start();
    if let Some(rest) = line.strip_prefix("pub") {
        let rest = match rest.strip_prefix('(') {
            Some(scoped) => scoped.split_once(')').map_or("", |(_, rest)| rest),
            None => rest,
        };
        if rest.starts_with(char::is_whitespace) {
            line = rest.trim_start();
        }
    }
    let first = line
        .split(|c: char| c.is_whitespace() || c == '{' || c == '"' || c == '<')
        .next()
        .unwrap_or("");
    match first {
        "import" | "from" | "use" | "mod" | "#include" | "#import" => true,
        // A re-export, not a definition (`export class Hono`).
        "export" => line.contains(" from "),
        _ => line.contains("require("),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fan(files: &[(&str, &str)]) -> Vec<usize> {
        let code: Vec<bool> = files.iter().map(|_| true).collect();
        fan_in(files, &code)
    }

    #[test]
    fn each_language_s_import_line_counts_its_importer_once() {
        let files = [
            ("rich/console.py", "class Console: pass\n"),
            (
                "rich/text.py",
                "from .console import Console\nfrom . import console\n",
            ),
            ("rich/table.py", "from rich.console import Console\n"),
            ("src/hono-base.ts", "export class Hono {}\n"),
            (
                "src/hono.ts",
                "import { HonoBase } from './hono-base'\nexport class Hono extends HonoBase {}\n",
            ),
            (
                "src/adapter/bun.ts",
                "import type { Hono } from '../hono'\n",
            ),
            ("src/preset.ts", "export { HonoBase } from './hono-base'\n"),
            ("src/walk.rs", "pub struct Walker;\n"),
            (
                "src/lib.rs",
                "pub mod walk;\npub(crate) use crate::walk::Walker;\n",
            ),
            ("include/fmt/format.h", "int f();\n"),
            ("include/fmt/core.h", "#include \"fmt/format.h\"\n"),
            ("lib/router.js", "module.exports = {}\n"),
            ("lib/app.js", "var Router = require('./router');\n"),
            ("src/client/utils.ts", "export const a = 1\n"),
            ("src/jsx/utils.ts", "export const b = 1\n"),
            ("src/client/client.ts", "import { a } from './utils'\n"),
        ];
        let counts = fan(&files);
        let by_id: HashMap<&str, usize> = files.iter().map(|(id, _)| *id).zip(counts).collect();
        assert_eq!(by_id["rich/console.py"], 2);
        assert_eq!(by_id["src/hono-base.ts"], 2);
        assert_eq!(by_id["src/hono.ts"], 1);
        assert_eq!(by_id["src/walk.rs"], 1);
        assert_eq!(by_id["include/fmt/format.h"], 1);
        assert_eq!(by_id["lib/router.js"], 1);
        assert_eq!(by_id["src/adapter/bun.ts"], 0);
        assert_eq!(by_id["lib/app.js"], 0);
        assert_eq!(by_id["src/client/utils.ts"], 1);
        assert_eq!(by_id["src/jsx/utils.ts"], 0);
    }

    #[test]
    fn words_outside_import_lines_other_packages_and_itself_do_not_count() {
        let files = [
            ("a/console.py", "import console\n"),
            ("a/other.py", "x = console.print()\n# from console\n"),
            ("b/user.py", "from a.console import Console\n"),
            ("a/index.ts", "export {}\n"),
            ("a/defines.ts", "export const console = 1\n"),
            ("a/uses_index.ts", "import x from './index'\n"),
        ];
        assert_eq!(fan(&files), vec![0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_file_that_is_not_code_neither_imports_nor_is_imported() {
        let files = [
            ("docs/console.md", "import console\n"),
            ("docs/usage.md", "from console import x\n"),
        ];
        assert_eq!(fan_in(&files, &[false, true]), vec![0, 0]);
        assert_eq!(fan_in(&files, &[true, false]), vec![0, 0]);
    }
}
