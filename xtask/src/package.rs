//! `cargo xtask package`: the generator as a user outside this repository gets it, from its
//! packages alone. Each step is what a user does, with the unpacked tarballs standing in for the
//! registry:
//!
//! 1. `cargo package` of the templates crate and the generator, unpacked;
//! 2. `cargo install --path` of the unpacked generator, its templates dependency patched to the
//!    unpacked templates tarball (so a file left outside a package fails here), and
//!    `openapi-gen --version`;
//! 3. the installed command generates the petstore corpus document (models, server, client);
//! 4. a crate outside the workspace generates the same document from `build.rs`, with the
//!    unpacked generator as its build dependency, as the generator's README shows;
//! 5. `cargo check` of the generated crates and that crate, warnings denied.

use crate::compile::{build_dir, workspace_target};
use crate::repo_root;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEMPLATES: &str = "openapi-gen-templates";
const GENERATOR: &str = "openapi-gen";

pub fn run() -> Result<bool, String> {
    let root = repo_root();
    let petstore = root.join("../shared/corpus/petstore-expanded-3.0.yaml");
    if !petstore.is_file() {
        return Err(format!(
            "{} is missing: the check generates the petstore corpus document",
            petstore.display()
        ));
    }
    // Outside the repository: cargo would take a package under it for a member of this workspace.
    let work = std::env::temp_dir().join("openapi-gen-package-check");
    let _ = std::fs::remove_dir_all(&work);
    let unpacked = work.join("unpacked");
    std::fs::create_dir_all(&unpacked).map_err(|e| e.to_string())?;

    step("cargo package");
    // Where cargo writes them: the target directory, `CARGO_TARGET_DIR` when set.
    let packages = workspace_target(&root).join("package");
    for old in crate_files(&packages) {
        let _ = std::fs::remove_file(old);
    }
    // Not verified here: step 2 builds the generator from its unpacked tarball against the
    // templates' tarball, the build verification would do, but in the workspace's target
    // directory, where verification builds every dependency again in one of its own (48 s in CI).
    finish(
        cargo(
            &root,
            &["package", "--locked", "--allow-dirty", "--no-verify"],
        )
        .args(["-p", TEMPLATES, "-p", GENERATOR]),
    )?;
    let mut templates_dir = None;
    let mut generator_dir = None;
    for tarball in crate_files(&packages) {
        finish(
            Command::new("tar")
                .arg("-xzf")
                .arg(&tarball)
                .arg("-C")
                .arg(&unpacked),
        )?;
        let stem = tarball.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = unpacked.join(&stem);
        if stem.starts_with(&format!("{TEMPLATES}-")) {
            templates_dir = Some(dir);
        } else if stem.starts_with(&format!("{GENERATOR}-")) {
            generator_dir = Some(dir);
        }
    }
    let templates_dir = templates_dir.ok_or("no templates tarball was packaged")?;
    let generator_dir = generator_dir.ok_or("no generator tarball was packaged")?;
    // The templates crate as a registry would serve it.
    let patch = format!(
        "patch.crates-io.{TEMPLATES}.path={}",
        toml_string(&templates_dir.display().to_string())
    );

    step("cargo install --path <unpacked generator>");
    let install_root = work.join("install");
    finish(
        cargo(&root, &["install", "--locked", "--debug", "--path"])
            .arg(&generator_dir)
            .arg("--root")
            .arg(&install_root)
            .args(["--config", &patch])
            // The workspace's target directory and its dev profile (Cargo.toml): the generator's
            // dependencies, built there by the tests and the xtask, are reused rather than built
            // again (55 of this step's 75 s). Only the two packages from their tarballs compile;
            // the binary lands on target/debug/openapi-gen until the workspace's next build of it.
            .env("CARGO_TARGET_DIR", workspace_target(&root))
            .args(["--config", "profile.dev.debug = \"line-tables-only\""])
            .args(["--config", "profile.dev.package.\"*\".debug = false"]),
    )?;
    let command = install_root.join("bin").join(GENERATOR);
    let version = finish(Command::new(&command).arg("--version"))?;
    println!("{}", version.trim());

    step("openapi-gen generate (petstore)");
    let consumer = work.join("consumer");
    finish(
        Command::new(&command)
            .args(["generate", "--spec"])
            .arg(&petstore)
            .arg("--out")
            .arg(&consumer)
            .args(["--crate-prefix", "petstore"]),
    )?;

    step("a crate outside the workspace that generates petstore from build.rs");
    write_build_rs_crate(&consumer.join("from-build-rs"), &generator_dir, &petstore)?;
    let manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [\"models\", \"server\", \"client\", \"from-build-rs\"]\n\n\
         [patch.crates-io]\n{TEMPLATES} = {{ path = {} }}\n",
        toml_string(&templates_dir.display().to_string())
    );
    write(&consumer.join("Cargo.toml"), &manifest)?;
    // The repository's lock file pins the versions the corpus and fixture checks built already.
    let _ = std::fs::copy(root.join("Cargo.lock"), consumer.join("Cargo.lock"));

    step("cargo check (generated crates and the build.rs crate, warnings denied)");
    finish(
        cargo(&consumer, &["check", "--workspace", "--all-targets"])
            .env("CARGO_TARGET_DIR", build_dir(&root))
            .env("RUSTFLAGS", "-D warnings"),
    )?;
    println!("\nthe packaged generator installs, generates and compiles petstore");
    Ok(true)
}

/// The crate a user writes: the generator as a build dependency, the module included, the
/// dependencies the module lists (`Module::dependencies`), and a use of its client.
fn write_build_rs_crate(dir: &Path, generator: &Path, spec: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(spec).map_err(|e| e.to_string())?;
    let mut options = openapi_gen::ModuleOptions::new("petstore.yaml");
    options.parts.push(openapi_gen::Part::Server);
    let module = openapi_gen::generate_module(&text, &options).map_err(|d| d.to_string())?;
    let manifest = format!(
        "[package]\nname = \"from-build-rs\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [build-dependencies]\n{GENERATOR} = {{ path = {}, default-features = false }}\n\n[dependencies]\n{}\n",
        toml_string(&generator.display().to_string()),
        module.dependencies.join("\n")
    );
    write(&dir.join("Cargo.toml"), &manifest)?;
    write(
        &dir.join("build.rs"),
        &format!(
            r#"fn main() {{
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("api.rs");
    let mut options = openapi_gen::ModuleOptions::new("petstore.yaml");
    options.parts.push(openapi_gen::Part::Server);
    let spec = std::path::Path::new({spec:?});
    let warnings = openapi_gen::write_module(spec, &out, &options).unwrap();
    for warning in warnings.0 {{
        println!("cargo::warning={{warning}}");
    }}
}}
"#,
            spec = spec.display().to_string()
        ),
    )?;
    write(
        &dir.join("src/lib.rs"),
        "//! The petstore API, generated by build.rs.\n\n\
         pub mod api {\n    include!(concat!(env!(\"OUT_DIR\"), \"/api.rs\"));\n}\n\n\
         /// A client of the API, as a user of the module builds one.\n\
         pub fn client(base_url: &str) -> Result<api::client::Client, api::client::BuildError> {\n    \
         api::client::Client::new(base_url)\n}\n",
    )
}

fn crate_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "crate"))
        .collect();
    files.sort();
    files
}

fn step(what: &str) {
    println!("\n=== package: {what}");
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// A TOML basic string: Rust's escapes agree with TOML's for the characters of a path.
fn toml_string(text: &str) -> String {
    format!("{text:?}")
}

fn cargo(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(args).current_dir(dir);
    command
}

/// Runs a command to its end, its stderr shown as it comes; a failure names the command.
fn finish(command: &mut Command) -> Result<String, String> {
    let output = command
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("running {command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{command:?} failed: {}", output.status));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
