//! The loop around a [`Session`]: rustyline on a terminal (line editing, history across
//! sessions, tab completion), a plain line reader otherwise (pipes, files), with no prompt.

use super::{Output, Session, COMMANDS};
use crate::diag::{codes, Diagnostic};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// Completes operations, procedures and handles, `:commands`, and file names after `:save`
/// and `:load`.
pub struct LoopyHelper {
    /// Operations, procedures and handles of the current state.
    pub names: Vec<String>,
    files: FilenameCompleter,
}

impl LoopyHelper {
    pub fn new(names: Vec<String>) -> LoopyHelper {
        LoopyHelper {
            names,
            files: FilenameCompleter::new(),
        }
    }

    /// Candidates for the word that ends at `pos`: where it starts and what may replace it.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let trimmed = before.trim_start();
        if trimmed.starts_with(':') {
            if trimmed.contains(char::is_whitespace) {
                return (pos, vec![]);
            }
            let start = before.len() - trimmed.len();
            let cs = COMMANDS
                .iter()
                .map(|(c, _, _)| c.to_string())
                .filter(|c| c.starts_with(trimmed))
                .collect();
            return (start, cs);
        }
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        let cs = self
            .names
            .iter()
            .filter(|n| n.starts_with(word))
            .cloned()
            .collect();
        (start, cs)
    }
}

impl Completer for LoopyHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let t = line[..pos].trim_start();
        if t.starts_with(":save ") || t.starts_with(":load ") {
            return self.files.complete(line, pos, ctx);
        }
        let (start, cs) = self.candidates(line, pos);
        Ok((
            start,
            cs.into_iter()
                .map(|c| Pair {
                    display: c.clone(),
                    replacement: c,
                })
                .collect(),
        ))
    }
}

impl Hinter for LoopyHelper {
    type Hint = String;
}
impl Highlighter for LoopyHelper {}
impl Validator for LoopyHelper {}
impl Helper for LoopyHelper {}

/// Where the history is kept: `$LOOPY_HISTORY`, else `$XDG_STATE_HOME/loopy/history`, else
/// `~/.local/state/loopy/history`.
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOOPY_HISTORY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let state = match std::env::var_os("XDG_STATE_HOME").filter(|p| !p.is_empty()) {
        Some(s) => PathBuf::from(s),
        None => PathBuf::from(std::env::var_os("HOME").filter(|p| !p.is_empty())?)
            .join(".local")
            .join("state"),
    };
    Some(state.join("loopy").join("history"))
}

/// Diagnostics first, so that a verdict line comes after its reports.
fn emit(o: &Output) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(o.err.as_bytes());
    let _ = err.flush();
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(o.out.as_bytes());
    let _ = out.flush();
}

/// Runs the session until `:quit` or the end of input. `first` is what the session printed
/// before the loop (the script given on the command line).
pub fn run(session: &mut Session, first: Output) {
    if std::io::stdin().is_terminal() {
        print!("{}", session.banner());
        emit(&first);
        if first.quit {
            return;
        }
        if let Err(e) = interactive(session) {
            let d = Diagnostic::new(codes::TERMINAL, format!("the terminal failed: {e}"));
            eprint!("{}", d.render(&[], false));
        }
    } else {
        emit(&first);
        if !first.quit {
            piped(session);
        }
    }
}

/// Lines from standard input, without prompts.
fn piped(session: &mut Session) {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let o = session.handle_line(text.trim_end_matches(['\n', '\r']));
                emit(&o);
                if o.quit {
                    return;
                }
            }
            Err(e) => {
                let d = Diagnostic::new(codes::TERMINAL, format!("cannot read the input: {e}"));
                eprint!("{}", d.render(&[], false));
                break;
            }
        }
    }
    emit(&session.finish());
}

fn interactive(session: &mut Session) -> rustyline::Result<()> {
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)?
        .max_history_size(1000)?
        .completion_type(CompletionType::List)
        .build();
    let mut rl: Editor<LoopyHelper, DefaultHistory> = Editor::with_config(config)?;
    rl.set_helper(Some(LoopyHelper::new(session.completions())));
    let history = history_path();
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    // The lines of the input being typed, for one history entry per input.
    let mut typed = String::new();
    loop {
        if let Some(h) = rl.helper_mut() {
            h.names = session.completions();
        }
        match rl.readline(&session.prompt()) {
            Ok(line) => {
                if !typed.is_empty() {
                    typed.push('\n');
                }
                typed.push_str(&line);
                let o = session.handle_line(&line);
                if !session.is_continuing() {
                    if !typed.trim().is_empty() {
                        let _ = rl.add_history_entry(typed.as_str());
                    }
                    typed.clear();
                }
                emit(&o);
                if o.quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => {
                session.cancel();
                typed.clear();
            }
            Err(ReadlineError::Eof) => {
                emit(&session.finish());
                break;
            }
            Err(e) => {
                save_history(&mut rl, history.as_ref());
                return Err(e);
            }
        }
    }
    save_history(&mut rl, history.as_ref());
    Ok(())
}

/// Appends this session's lines to the history file; never fails the session.
fn save_history(rl: &mut Editor<LoopyHelper, DefaultHistory>, path: Option<&PathBuf>) {
    let Some(p) = path else { return };
    if let Some(dir) = p.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = rl.append_history(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_names_and_commands() {
        let h = LoopyHelper::new(vec!["Init".into(), "interchange".into(), "tile".into()]);
        assert_eq!(h.candidates("ti", 2), (0, vec!["tile".to_string()]));
        assert_eq!(
            h.candidates("realign(In", 10),
            (8, vec!["Init".to_string()])
        );
        assert_eq!(
            h.candidates("  :s", 4),
            (2, vec![":schedule".to_string(), ":save".to_string()])
        );
        assert_eq!(h.candidates(":undo x", 7), (7, vec![]));
    }
}
