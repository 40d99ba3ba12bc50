//! Go: test and build every package, run the main package and each `cmd/<name>`.

use super::{argv, glob, item, Extra, Project};
use crate::entry::Args;
use crate::project::SourceItem;

pub fn items(p: &Project) -> Vec<SourceItem> {
    if !p.exists("go.mod") {
        return Vec::new();
    }
    let go = |name: &str, parts: &[&str], args: Args, description: String, meaning: Option<&str>| {
        item("go", name, argv(parts), p.root_text, Extra { args: Some(args), description, meaning })
    };
    let mut out = vec![
        go("test", &["go", "test", "./..."], Args::Optional, "Runs the Go tests of every package".into(), None),
        go("build", &["go", "build", "./..."], Args::None, "Compiles every Go package".into(), None),
    ];
    if p.exists("main.go") {
        out.push(go("run", &["go", "run", "."], Args::Optional, "Runs the main package".into(), None));
    }
    for dir in glob(p.root, "cmd/*") {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { continue };
        let ok = name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        if dir.is_dir() && ok {
            let path = format!("./cmd/{name}");
            out.push(go(
                &format!("run-{name}"),
                &["go", "run", &path],
                Args::Optional,
                format!("Runs the command {name}"),
                Some("run"),
            ));
        }
    }
    out
}
