//! The jobs of a manifest (`loopy bench --manifest`): every legal entry with benching
//! enabled, at each size asked for, with the settings every job of one command shares.

use super::{plain, stem, Baseline, Job};
use crate::diag::Report;
use crate::manifest::Entry;
use crate::native::{Check, Clock, Plan, Toolchain};
use std::path::PathBuf;

/// BenchSettings shared by every job of one command.
#[derive(Clone, Debug)]
pub struct BenchSettings {
    pub toolchain: Toolchain,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub plan: Plan,
    /// `--baseline`, as given (a manifest entry's `cflags` are added per entry).
    pub baselines: Vec<Baseline>,
    pub threads: Vec<u32>,
    pub check: Check,
}

/// What a `--manifest` run adds to each entry: the command line's preprocessor options, the
/// sizes to run each entry at (none: its default size), the identity instead of the
/// scripts, and where to keep the builds.
#[derive(Clone, Debug, Default)]
pub struct ManifestRun {
    pub includes: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub sizes: Vec<String>,
    pub identity: bool,
    pub keep: Option<PathBuf>,
    /// Only the entries of these names (`--only`; empty: all).
    pub only: Vec<String>,
}

/// A folder name for an entry in the keep directory.
fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The jobs of a manifest: every legal entry with benching enabled, at each size asked for.
pub fn manifest_jobs(
    entries: Vec<Entry>,
    a: &ManifestRun,
    c: &BenchSettings,
) -> Result<Vec<Job>, Report> {
    let mut jobs = vec![];
    for e in entries {
        if !e.expect_legal || !e.bench.enabled {
            continue;
        }
        let name = e.bench.name.clone().unwrap_or_else(|| stem(&e.kernel));
        if !a.only.is_empty() && !a.only.contains(&name) {
            continue;
        }
        let mut opts = e.opts.clone();
        opts.includes.extend(a.includes.iter().cloned());
        opts.defines.extend(a.defines.iter().cloned());
        let sizes: Vec<Option<String>> = if a.sizes.is_empty() {
            vec![None]
        } else {
            a.sizes.iter().cloned().map(Some).collect()
        };
        for size in sizes {
            let mut opts = opts.clone();
            if let Some(s) = &size {
                let Some((_, defs)) = e.bench.sizes.iter().find(|(n, _)| n == s) else {
                    let known: Vec<&str> = e.bench.sizes.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(plain(
                        crate::diag::codes::INVALID_OPTION,
                        format!(
                            "the manifest entry `{name}` has no size `{s}` (it has: {})",
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ));
                };
                opts.defines.extend(defs.iter().cloned());
            }
            let mut toolchain = c.toolchain.clone();
            toolchain.includes = opts.includes.clone();
            toolchain.defines = opts.defines.clone();
            toolchain.cflags.extend(e.bench.cflags.iter().cloned());
            toolchain.ldflags.extend(e.bench.ldflags.iter().cloned());
            let mut extra: Vec<String> = e
                .bench
                .sources
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            extra.extend(toolchain.extra.iter().cloned());
            toolchain.extra = extra;
            let mut check_defines = e.bench.check_defines.clone();
            check_defines.extend(c.check_defines.iter().cloned());
            let mut check_cflags = c.check_cflags.clone();
            check_cflags.extend(e.bench.check_cflags.iter().cloned());
            let mut plan = c.plan;
            if e.bench.time_from_stdout {
                plan.clock = Clock::Stdout;
            }
            let script = (!a.identity).then(|| e.script.clone());
            let job = Job {
                name: name.clone(),
                size: size.clone(),
                settings: if a.identity {
                    Default::default()
                } else {
                    e.settings.clone()
                },
                check_defines,
                check_cflags,
                baselines: c
                    .baselines
                    .iter()
                    .map(|b| Baseline {
                        cflags: b.cflags.iter().chain(&e.bench.cflags).cloned().collect(),
                        ..b.clone()
                    })
                    .collect(),
                reference: e.bench.reference.clone(),
                threads: c.threads.clone(),
                check: c.check,
                flops: e.bench.flops.clone(),
                ..Job::new(e.kernel.clone(), script, opts, toolchain, plan)
            };
            let folder = match &size {
                Some(s) => format!("{name}-{s}"),
                None => name.clone(),
            };
            let keep = a.keep.as_ref().map(|k| k.join(slug(&folder)));
            jobs.push(Job { keep, ..job });
        }
    }
    for n in &a.only {
        if !jobs.iter().any(|j| &j.name == n) {
            return Err(plain(
                crate::diag::codes::INVALID_OPTION,
                format!("`--only {n}`: the manifest has no benched entry named `{n}`"),
            ));
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("fdtd-2d-large"), "fdtd-2d-large");
        assert_eq!(slug("a b/c"), "a-b-c");
    }
}
