//! Files that hold credentials whatever they contain, recognised by name:
//! `.env`, `.netrc`, `.aws/credentials`, `id_rsa`, `*.ppk`, `*.p12`, ….

/// The rule id [`credential_file`] gives a file that holds credentials.
pub const CREDENTIAL_FILE: &str = "credential-file";
/// The rule id [`credential_file`] gives an SSH or PuTTY private key file.
pub const PRIVATE_KEY_FILE: &str = "private-key-file";
/// The rule id [`credential_file`] gives a PKCS #12 key store (gitleaks'
/// `pkcs12-file`).
pub const PKCS12_FILE: &str = "pkcs12-file";

/// File names that hold credentials wherever they are.
pub const CREDENTIAL_NAMES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".my.cnf",
    ".mylogin.cnf",
    ".htpasswd",
    ".terraformrc",
    "terraform.rc",
    "credentials.tfrc.json",
    ".vault-token",
    ".s3cfg",
    ".boto",
    ".dockercfg",
];

/// Paths (their last components) of command-line tools' credential stores,
/// as they appear under a home directory.
pub const CREDENTIAL_PATHS: &[&str] = &[
    ".aws/credentials",
    ".azure/accessTokens.json",
    ".azure/msal_token_cache.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gcloud/access_tokens.db",
    ".config/gcloud/application_default_credentials.json",
    ".config/gcloud/credentials.db",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".gem/credentials",
    ".kube/config",
];

/// Directories whose every file is a credential store.
pub const CREDENTIAL_DIRECTORIES: &[&str] = &[".config/gcloud/legacy_credentials"];

/// Private key file names (`ssh-keygen`'s defaults; not the `.pub` halves).
pub const PRIVATE_KEY_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ecdsa_sk",
    "id_ed25519",
    "id_ed25519_sk",
];

/// `.env.<suffix>` files that document the variables instead of setting
/// them, when any dot-separated part after `.env` is one of these.
pub const ENV_TEMPLATE_SUFFIXES: &[&str] = &[
    "example", "sample", "template", "tmpl", "tpl", "dist", "defaults", "schema",
];

/// The rule id (`credential-file`, `private-key-file` or `pkcs12-file`) when
/// a file's relative path (`/` or `\` between components) names a file that
/// holds credentials, whatever it contains: `.env` and `.env.*` (not
/// `.env.example` and the like), `.netrc`, `.aws/credentials`, `id_rsa`,
/// `*.ppk`, `*.p12`, … (the lists above). Matching is case-sensitive, as on
/// the systems where these files live, except for the extensions.
pub fn credential_file(path: &str) -> Option<&'static str> {
    let components: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let name = *components.last()?;
    if name == ".env"
        || name.strip_prefix(".env.").is_some_and(|suffix| {
            !suffix.is_empty()
                && !suffix
                    .split('.')
                    .any(|part| ENV_TEMPLATE_SUFFIXES.contains(&part.to_ascii_lowercase().as_str()))
        })
        || CREDENTIAL_NAMES.contains(&name)
    {
        return Some(CREDENTIAL_FILE);
    }
    let ends_with = |suffix: &str| {
        let suffix: Vec<&str> = suffix.split('/').collect();
        components.ends_with(&suffix)
    };
    if CREDENTIAL_PATHS.iter().any(|p| ends_with(p)) {
        return Some(CREDENTIAL_FILE);
    }
    let parents = &components[..components.len() - 1];
    if CREDENTIAL_DIRECTORIES.iter().any(|directory| {
        let directory: Vec<&str> = directory.split('/').collect();
        parents.windows(directory.len()).any(|w| w == directory)
    }) {
        return Some(CREDENTIAL_FILE);
    }
    if PRIVATE_KEY_NAMES.contains(&name) {
        return Some(PRIVATE_KEY_FILE);
    }
    let extension = name
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("ppk") => Some(PRIVATE_KEY_FILE),
        Some("p12" | "pfx") => Some(PKCS12_FILE),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_files_are_recognised_by_name() {
        for (path, rule) in [
            (".env", CREDENTIAL_FILE),
            ("app/.env", CREDENTIAL_FILE),
            (".env.local", CREDENTIAL_FILE),
            ("web/.env.production", CREDENTIAL_FILE),
            (".env.development.local", CREDENTIAL_FILE),
            (".env.test", CREDENTIAL_FILE),
            (".netrc", CREDENTIAL_FILE),
            ("_netrc", CREDENTIAL_FILE),
            (".pgpass", CREDENTIAL_FILE),
            ("frontend/.npmrc", CREDENTIAL_FILE),
            (".pypirc", CREDENTIAL_FILE),
            (".git-credentials", CREDENTIAL_FILE),
            (".my.cnf", CREDENTIAL_FILE),
            (".mylogin.cnf", CREDENTIAL_FILE),
            ("public/.htpasswd", CREDENTIAL_FILE),
            (".terraformrc", CREDENTIAL_FILE),
            (".terraform.d/credentials.tfrc.json", CREDENTIAL_FILE),
            (".vault-token", CREDENTIAL_FILE),
            (".s3cfg", CREDENTIAL_FILE),
            (".docker/config.json", CREDENTIAL_FILE),
            ("home/me/.docker/config.json", CREDENTIAL_FILE),
            (".aws/credentials", CREDENTIAL_FILE),
            (".azure/accessTokens.json", CREDENTIAL_FILE),
            (".config/gcloud/credentials.db", CREDENTIAL_FILE),
            (
                ".config/gcloud/application_default_credentials.json",
                CREDENTIAL_FILE,
            ),
            (
                ".config/gcloud/legacy_credentials/me@example.com/adc.json",
                CREDENTIAL_FILE,
            ),
            (".kube/config", CREDENTIAL_FILE),
            (".gem/credentials", CREDENTIAL_FILE),
            (".cargo/credentials.toml", CREDENTIAL_FILE),
            (".config/gh/hosts.yml", CREDENTIAL_FILE),
            ("./.env", CREDENTIAL_FILE),
            ("config\\.env.local", CREDENTIAL_FILE),
            (".ssh/id_rsa", PRIVATE_KEY_FILE),
            ("deploy/id_ed25519", PRIVATE_KEY_FILE),
            ("id_ecdsa", PRIVATE_KEY_FILE),
            ("id_dsa", PRIVATE_KEY_FILE),
            ("keys/server.ppk", PRIVATE_KEY_FILE),
            ("keys/SERVER.PPK", PRIVATE_KEY_FILE),
            ("certs/client.p12", PKCS12_FILE),
            ("ToDo.UWP_TemporaryKey.pfx", PKCS12_FILE),
        ] {
            assert_eq!(credential_file(path), Some(rule), "{path}");
        }
        for path in [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".env.dist",
            ".env.local.example",
            ".env.production.sample",
            ".env.EXAMPLE",
            ".env.tpl",
            ".env.defaults",
            ".envrc",
            ".env-example",
            "env.rs",
            "src/env.rs",
            "src/dotenv.rs",
            ".env/lib/python3.12/site-packages/six.py",
            "docs/netrc.md",
            "id_rsa.pub",
            ".ssh/id_ed25519.pub",
            ".ssh/known_hosts",
            ".ssh/config",
            "certs/server.pem",
            "certs/ca.crt",
            "docker/config.json",
            "config.json",
            "aws/credentials.md",
            "kube/config",
            ".kube/config.example",
            "src/credentials.rs",
            "doc/typenum/type.P126.html",
            "scripts/keeneland/syntest.p1200.sh",
            ".ppk",
            "Cargo.toml",
            "package.json",
            ".gitignore",
            ".github/workflows/ci.yml",
            "",
        ] {
            assert_eq!(credential_file(path), None, "{path}");
        }
    }
}
