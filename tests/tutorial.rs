//! Every `$ loopy ...` command of docs/tutorial.md runs as shown: from a copy of the
//! repository's tutorial files, with the exit code the text gives (`# exits N`, else 0),
//! and printing the first output line shown under it (timings aside).

mod common;
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn every_command_of_the_tutorial_works_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/tutorial.md")).unwrap();
    let dir = common::scratch("tutorial", "commands");
    copy_dir(&root.join("docs/tutorial"), &dir.join("docs/tutorial"));
    let lines: Vec<&str> = text.lines().collect();
    let mut ran = 0;
    for (k, line) in lines.iter().enumerate() {
        let Some(cmd) = line.strip_prefix("$ loopy ") else {
            continue;
        };
        let (cmd, want) = match cmd.split_once("# exits ") {
            Some((c, n)) => (c.trim(), n.trim().parse::<i32>().unwrap()),
            None => (cmd.trim(), 0),
        };
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopy"))
            .args(&args)
            .env("NO_COLOR", "1")
            .current_dir(&dir)
            .output()
            .unwrap();
        let (code, stdout, stderr) = common::outcome(out);
        assert_eq!(code, want, "`loopy {cmd}`:\n{stdout}{stderr}");
        let all = format!("{stdout}{stderr}");
        if let Some(shown) = lines.get(k + 1) {
            let shown = shown.trim_end();
            if !shown.is_empty()
                && shown != "…"
                && !shown.starts_with("```")
                && !shown.starts_with('$')
            {
                // Timings change from run to run.
                let stable = match shown.find(" (") {
                    Some(p) if shown.ends_with("ms)") => &shown[..p],
                    _ => shown,
                };
                assert!(
                    all.lines().any(|l| l.trim_end().starts_with(stable)),
                    "`loopy {cmd}` does not print {stable:?}:\n{all}"
                );
            }
        }
        ran += 1;
    }
    assert!(ran >= 12, "only {ran} commands found");
}
