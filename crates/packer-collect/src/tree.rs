//! The `--tree` document: the directory tree of the collected files, one
//! name per line, indented two spaces per level, directories ending in `/`.

/// Renders sorted `/`-separated ids (a common prefix keeps a directory's
/// entries together) under a `./` root line.
pub(crate) fn render(ids: &[&str]) -> String {
    let files: Vec<(&str, Option<&str>)> = ids.iter().map(|id| (*id, None)).collect();
    render_marked(&files)
}

/// [`render`] with a mark after each file's name that has one (` [outline]`).
pub(crate) fn render_marked(files: &[(&str, Option<&str>)]) -> String {
    let mut out = String::from("./\n");
    let mut open: Vec<&str> = Vec::new();
    for &(id, mark) in files {
        let mut parts: Vec<&str> = id.split('/').collect();
        let Some(name) = parts.pop() else { continue };
        let common = open.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        open.truncate(common);
        for dir in &parts[common..] {
            push_line(&mut out, open.len(), &format!("{dir}/"));
            open.push(dir);
        }
        match mark {
            Some(mark) => push_line(&mut out, open.len(), &format!("{name}{mark}")),
            None => push_line(&mut out, open.len(), name),
        }
    }
    out
}

fn push_line(out: &mut String, depth: usize, name: &str) {
    for _ in 0..=depth {
        out.push_str("  ");
    }
    out.push_str(name);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reads a rendered tree back into file paths.
    fn parse(tree: &str) -> Vec<String> {
        let mut dirs: Vec<&str> = Vec::new();
        let mut files = Vec::new();
        for line in tree.lines().skip(1) {
            let name = line.trim_start_matches(' ');
            let depth = (line.len() - name.len()) / 2 - 1;
            dirs.truncate(depth);
            match name.strip_suffix('/') {
                Some(dir) => dirs.push(dir),
                None => {
                    let mut path = dirs.join("/");
                    if !path.is_empty() {
                        path.push('/');
                    }
                    path.push_str(name);
                    files.push(path);
                }
            }
        }
        files
    }

    proptest! {
        #[test]
        fn every_file_appears_once_at_its_place(
            paths in proptest::collection::btree_set("[a-c]{1,2}(/[a-c.]{1,2}){0,3}", 0..40)
        ) {
            // A path cannot be both a file and a directory.
            let mut ids: Vec<&str> = paths
                .iter()
                .map(String::as_str)
                .filter(|p| !paths.iter().any(|q| q.starts_with(&format!("{p}/"))))
                .collect();
            ids.sort_unstable();
            let tree = render(&ids);
            prop_assert_eq!(parse(&tree), ids.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn nests_directories_and_reopens_none() {
        let ids = [
            "Cargo.toml",
            "src/a.rs",
            "src/b/c.rs",
            "src/b/d.rs",
            "src/e.rs",
            "z/y/x",
        ];
        assert_eq!(
            render(&ids),
            "./\n  Cargo.toml\n  src/\n    a.rs\n    b/\n      c.rs\n      d.rs\n    e.rs\n  z/\n    y/\n      x\n"
        );
        assert_eq!(render(&[]), "./\n");
    }
}
