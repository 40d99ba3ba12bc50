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
