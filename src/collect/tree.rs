//! The `--tree` document: the directory tree of the collected files, one
//! name per line, indented two spaces per level, directories ending in `/`.

/// Renders sorted `/`-separated ids (a common prefix keeps a directory's
/// entries together) under a `./` root line.
pub(crate) fn render(ids: &[&str]) -> String {
    let mut out = String::from("./\n");
    let mut open: Vec<&str> = Vec::new();
    for id in ids {
        let mut parts: Vec<&str> = id.split('/').collect();
        let Some(name) = parts.pop() else { continue };
        let common = open.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        open.truncate(common);
        for dir in &parts[common..] {
            push_line(&mut out, open.len(), &format!("{dir}/"));
            open.push(dir);
        }
        push_line(&mut out, open.len(), name);
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
