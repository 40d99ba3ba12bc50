//! The `leash helix` subcommands that need no terminal behave as Helix's key bindings
//! need: `take` prints one harmless command and nothing on stderr, `plan` always answers
//! on stdout, `keys` prints the bindings.

use std::process::Command;

#[test]
fn the_helix_subcommands_answer_as_the_bindings_need() {
    let state = std::env::temp_dir().join(format!("leash-helix-cli-{}", std::process::id()));
    std::fs::create_dir_all(&state).unwrap();
    let leash = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_leash"))
            .args(args)
            .env("XDG_STATE_HOME", &state)
            .env("XDG_CONFIG_HOME", &state)
            .output()
            .unwrap()
    };
    let take = leash(&["helix", "take"]);
    assert!(take.status.success());
    assert_eq!(
        String::from_utf8_lossy(&take.stdout),
        "<space><F12>:echo leash: nothing to apply<ret>",
        "one harmless command, typed through leash's own key, no newline"
    );
    assert!(take.stderr.is_empty(), "Helix shows stderr instead of stdout: it must stay empty");
    let plan = leash(&["helix", "plan"]);
    assert!(plan.status.success() && plan.stderr.is_empty());
    assert!(plan.stdout.is_empty(), "no request (ask was cancelled): no popup");
    let keys = leash(&["helix", "keys", "--command", "leash"]);
    assert!(keys.status.success());
    let text = String::from_utf8_lossy(&keys.stdout);
    assert!(text.contains("[keys.normal.space]\n\".\" = \"@<space><F12>:noop %sh{leash helix do --tag "), "{text}");
    assert!(text.contains("[keys.normal.space.F12]\n\":\" = \"command_mode\"\n"), "{text}");
    let help = leash(&["helix", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("WHAT WAITS FOR HELIX'S PLUGIN SYSTEM"));
    let bad = leash(&["helix", "frobnicate"]);
    assert_eq!(bad.status.code(), Some(2));

    // A wrong key in leash's config.toml is named; it is not a usage error.
    std::fs::create_dir_all(state.join("leash")).unwrap();
    std::fs::write(
        state.join("leash/config.toml"),
        "provider = \"groq\"\n[providers.groq]\nkind = \"openai\"\napi_key = \"x\"\n",
    )
    .unwrap();
    let catalog = leash(&["helix", "catalog"]);
    assert_eq!(catalog.status.code(), Some(1));
    let err = String::from_utf8_lossy(&catalog.stderr);
    assert!(err.contains("providers.groq") && err.contains("api_key"), "{err}");

    // A Helix config.toml that does not parse is never overwritten.
    let hx = state.join("hx.toml");
    let broken = "# mine\n[editor\nmouse = false\n";
    std::fs::write(&hx, broken).unwrap();
    let install = leash(&["helix", "keys", "--install", "--command", "leash", "--helix-config", hx.to_str().unwrap()]);
    assert_eq!(install.status.code(), Some(1));
    assert!(!install.stderr.is_empty());
    assert_eq!(std::fs::read_to_string(&hx).unwrap(), broken);

    let _ = std::fs::remove_dir_all(&state);
}

/// `keys --install` as a user runs it: from a shell under some other program, into a
/// config.toml with bindings of its own.
#[test]
fn install_takes_only_what_is_leash_s_and_only_helix_s_config() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let hx = home.path().join("helix/config.toml");
    std::fs::create_dir_all(hx.parent().unwrap()).unwrap();
    // Started from `python3 -c CODE` (or tmux's `-c DIR`): that `-c` is not Helix's.
    let under_python = |extra: &[&str]| {
        let mut argv = vec![env!("CARGO_BIN_EXE_leash"), "helix", "keys", "--install", "--command", "leash"];
        argv.extend_from_slice(extra);
        let code = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)";
        Command::new("python3")
            .arg("-c")
            .arg(code)
            .args(&argv)
            .current_dir(cwd.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env_remove("LEASH_HELIX_VERSION")
            .output()
            .unwrap()
    };
    let mine = "[keys.normal]\nspace = { \".\" = \":write\", x = \":quit\" }\n";
    std::fs::write(&hx, mine).unwrap();
    let refused = under_python(&[]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("space . = \":write\"") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&hx).unwrap(), mine, "nothing was written");
    let forced = under_python(&["--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(String::from_utf8_lossy(&forced.stdout).contains(&hx.display().to_string()));
    let text = std::fs::read_to_string(&hx).unwrap();
    assert!(text.contains("[keys.normal.space]\n"), "the inline table became a table of its own: {text}");
    assert!(text.contains("\nx = \":quit\"\n"), "{text}");
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0, "no file was made from python's -c");

    // A program named hx whose `-c` names no file: refused, nothing created from it.
    let bin = tempfile::tempdir().unwrap();
    let python = String::from_utf8(
        Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap().stdout,
    )
    .unwrap();
    std::os::unix::fs::symlink(python.trim(), bin.path().join("hx")).unwrap();
    let code = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)";
    let from_hx = Command::new(bin.path().join("hx"))
        .args(["-c", code, env!("CARGO_BIN_EXE_leash"), "helix", "keys", "--install", "--command", "leash"])
        .current_dir(cwd.path())
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(from_hx.status.code(), Some(1));
    let err = String::from_utf8_lossy(&from_hx.stderr);
    assert!(err.contains("does not exist") && err.contains("--helix-config"), "{err}");
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0, "no file was made from that -c");
}

/// A missing API key is found without asking the model: what `space .` and `space ,`
/// check before they open the request line.
#[test]
fn a_missing_api_key_is_named_before_the_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("leash")).unwrap();
    std::fs::write(
        dir.path().join("leash/config.toml"),
        "provider = \"claude\"\n[providers.claude]\nkind = \"anthropic\"\napi_key_env = \"LEASH_TEST_NO_SUCH_KEY\"\n",
    )
    .unwrap();
    let cfg = leash::config_file::ProgramConfig::load(&dir.path().join("leash/config.toml")).unwrap();
    let e = leash_core::llm::check_key(&cfg.provider_config().unwrap()).unwrap_err().to_string();
    assert!(e.contains("LEASH_TEST_NO_SUCH_KEY"), "{e}");
    let offline = leash::config_file::ProgramConfig::default();
    assert!(leash_core::llm::check_key(&offline.provider_config().unwrap()).is_ok());
}
