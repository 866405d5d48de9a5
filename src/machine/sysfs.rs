//! The processor's CPUs and caches as Linux describes them under `/sys/devices/system/cpu`
//! (or a copy of that tree): `online`, `cpuN/topology/{core_id,physical_package_id}` and
//! `cpu0/cache/indexK/{level,type,size,ways_of_associativity,coherency_line_size,
//! number_of_sets,shared_cpu_list}`. Whatever cannot be read is `None`, never a guess.

use std::path::Path;

/// The kind of a cache (`type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheKind {
    Data,
    Instruction,
    Unified,
    Other(String),
}

impl CacheKind {
    fn parse(s: &str) -> CacheKind {
        match s {
            "Data" => CacheKind::Data,
            "Instruction" => CacheKind::Instruction,
            "Unified" => CacheKind::Unified,
            s => CacheKind::Other(s.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            CacheKind::Data => "data",
            CacheKind::Instruction => "instruction",
            CacheKind::Unified => "unified",
            CacheKind::Other(s) => s,
        }
    }

    /// Whether the cache holds data (the model's caches).
    pub fn holds_data(&self) -> bool {
        matches!(self, CacheKind::Data | CacheKind::Unified)
    }
}

/// One cache as seen from cpu0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    /// The `indexK` folder it came from.
    pub index: String,
    pub level: Option<u32>,
    pub kind: Option<CacheKind>,
    /// Bytes.
    pub size: Option<u64>,
    /// Ways of associativity: `ways_of_associativity`, or size / (sets × line) where that
    /// file is missing or says 0.
    pub ways: Option<u32>,
    /// Line size in bytes.
    pub line: Option<u32>,
    pub sets: Option<u64>,
    /// The CPUs sharing it (`shared_cpu_list`), as written there and expanded.
    pub shared_with: Option<(String, Vec<u32>)>,
}

/// CPUs and cores.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cpus {
    /// The online CPUs (`online`, e.g. `0-3,8-11`).
    pub online: Option<Vec<u32>>,
    /// Distinct (package, core) pairs among the online CPUs.
    pub cores: Option<usize>,
    /// Distinct packages among the online CPUs.
    pub packages: Option<usize>,
}

/// A size as sysfs writes it: `48K`, `2048K`, `32M`, `1G`, or bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last()? {
        (i, 'K' | 'k') => (&s[..i], 1u64 << 10),
        (i, 'M' | 'm') => (&s[..i], 1 << 20),
        (i, 'G' | 'g') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// A CPU list: `0`, `0-3`, `0-3,8-11`, `0,2,4` (sorted, without repeats).
pub fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(vec![]);
    }
    let mut v = vec![];
    for part in s.split(',') {
        let part = part.trim();
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if a > b || b - a > 1 << 16 {
                    return None;
                }
                v.extend(a..=b);
            }
            None => v.push(part.parse().ok()?),
        }
    }
    v.sort_unstable();
    v.dedup();
    Some(v)
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

fn number<T: std::str::FromStr>(p: &Path) -> Option<T> {
    read(p)?.parse().ok()
}

/// The caches of `cpu0` under `root` (the `cpu` folder), in index order (`index0`,
/// `index1`, …; `index10` after `index9`). `Err` says why there is nothing to read.
pub fn read_caches(root: &Path) -> Result<Vec<Cache>, String> {
    let dir = root.join("cpu0").join("cache");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    let mut found: Vec<(u32, String)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = name.strip_prefix("index")?.parse().ok()?;
            Some((n, name))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(format!("no `index*` folders in `{}`", dir.display()));
    }
    Ok(found
        .into_iter()
        .map(|(_, name)| {
            let d = dir.join(&name);
            let size = read(&d.join("size")).and_then(|s| parse_size(&s));
            let line = number::<u32>(&d.join("coherency_line_size")).filter(|&l| l > 0);
            let sets = number::<u64>(&d.join("number_of_sets")).filter(|&s| s > 0);
            let ways = number::<u32>(&d.join("ways_of_associativity"))
                .filter(|&w| w > 0)
                .or_else(|| {
                    let (size, line, sets) = (size?, u64::from(line?), sets?);
                    let per_way = line.checked_mul(sets)?;
                    size.is_multiple_of(per_way)
                        .then(|| u32::try_from(size / per_way).ok())
                        .flatten()
                        .filter(|&w| w > 0)
                });
            let shared_with =
                read(&d.join("shared_cpu_list")).and_then(|s| parse_cpu_list(&s).map(|v| (s, v)));
            Cache {
                index: name,
                level: number(&d.join("level")),
                kind: read(&d.join("type")).map(|s| CacheKind::parse(&s)),
                size,
                ways,
                line,
                sets,
                shared_with,
            }
        })
        .collect())
}

/// The online CPUs and how many cores and packages they make.
pub fn read_cpus(root: &Path) -> Cpus {
    let online = read(&root.join("online")).and_then(|s| parse_cpu_list(&s));
    let (cores, packages) = match &online {
        Some(cpus) if !cpus.is_empty() => {
            let mut pairs = vec![];
            let mut all = true;
            for c in cpus {
                let t = root.join(format!("cpu{c}")).join("topology");
                match (
                    number::<i64>(&t.join("physical_package_id")),
                    number::<i64>(&t.join("core_id")),
                ) {
                    (Some(p), Some(c)) => pairs.push((p, c)),
                    _ => all = false,
                }
            }
            if all {
                let mut packs: Vec<i64> = pairs.iter().map(|p| p.0).collect();
                pairs.sort_unstable();
                pairs.dedup();
                packs.sort_unstable();
                packs.dedup();
                (Some(pairs.len()), Some(packs.len()))
            } else {
                (None, None)
            }
        }
        _ => (None, None),
    };
    Cpus {
        online,
        cores,
        packages,
    }
}

/// Writes a fake `cpu` tree under `root` (tests here and in `machine`).
#[cfg(test)]
pub(crate) fn write_tree(
    root: &Path,
    online: &str,
    topology: &[(u32, u32, u32)],
    caches: &[[&str; 6]],
) {
    let w = |p: std::path::PathBuf, s: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{s}\n")).unwrap();
    };
    w(root.join("online"), online);
    for &(cpu, pkg, core) in topology {
        let t = root.join(format!("cpu{cpu}/topology"));
        w(t.join("physical_package_id"), &pkg.to_string());
        w(t.join("core_id"), &core.to_string());
    }
    // [level, type, size, ways, line, shared_cpu_list]; an empty string leaves the file out.
    for (i, c) in caches.iter().enumerate() {
        let d = root.join(format!("cpu0/cache/index{i}"));
        for (name, v) in [
            "level",
            "type",
            "size",
            "ways_of_associativity",
            "coherency_line_size",
            "shared_cpu_list",
        ]
        .iter()
        .zip(c)
        {
            if !v.is_empty() {
                w(d.join(name), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::WorkDir;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("266240K"), Some(266240 * 1024));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size(" 64K\n"), Some(65536));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("big"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0"), Some(vec![0]));
        assert_eq!(parse_cpu_list("0-1\n"), Some(vec![0, 1]));
        assert_eq!(
            parse_cpu_list("0-2,8,10-11"),
            Some(vec![0, 1, 2, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("3,1,1"), Some(vec![1, 3]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("2-1"), None);
        assert_eq!(parse_cpu_list("a"), None);
    }

    #[test]
    fn a_tree() {
        let dir = WorkDir::new(None).unwrap();
        let root = dir.path();
        // Two packages, two cores each, two threads per core.
        let topo: Vec<(u32, u32, u32)> = (0..8).map(|c| (c, c / 4, (c % 4) / 2)).collect();
        write_tree(
            root,
            "0-7",
            &topo,
            &[
                ["1", "Data", "32K", "8", "64", "0,4"],
                ["1", "Instruction", "32K", "8", "64", "0,4"],
                ["2", "Unified", "512K", "", "64", "0,4"],
                ["3", "Unified", "32768K", "16", "64", "0-3"],
            ],
        );
        // The second-level cache says its sets instead of its ways.
        std::fs::write(root.join("cpu0/cache/index2/number_of_sets"), "1024\n").unwrap();
        let cpus = read_cpus(root);
        assert_eq!(cpus.online, Some((0..8).collect()));
        assert_eq!((cpus.cores, cpus.packages), (Some(4), Some(2)));
        let c = read_caches(root).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c[0].level, Some(1));
        assert_eq!(c[0].kind, Some(CacheKind::Data));
        assert_eq!(
            (c[0].size, c[0].ways, c[0].line),
            (Some(32768), Some(8), Some(64))
        );
        assert_eq!(c[0].shared_with, Some(("0,4".to_string(), vec![0, 4])));
        assert_eq!(c[1].kind, Some(CacheKind::Instruction));
        assert_eq!(c[2].ways, Some(8), "512 KiB / (1024 sets × 64 bytes)");
        assert_eq!(c[3].size, Some(32 << 20));
        assert_eq!(c[3].shared_with.as_ref().unwrap().1.len(), 4);
    }

    #[test]
    fn missing_parts_are_unknown() {
        let dir = WorkDir::new(None).unwrap();
        let root = dir.path();
        assert!(read_caches(root).unwrap_err().contains("cannot read"));
        assert_eq!(read_cpus(root), Cpus::default());
        write_tree(
            root,
            "0-1",
            &[(0, 0, 0)],
            &[["1", "Data", "garbage", "0", "", ""]],
        );
        let c = read_caches(root).unwrap();
        assert_eq!(c[0].size, None);
        assert_eq!(c[0].ways, None, "0 ways and nothing to derive them from");
        assert_eq!(c[0].line, None);
        assert_eq!(c[0].shared_with, None);
        // cpu1 has no topology: cores are not counted from half the CPUs.
        let cpus = read_cpus(root);
        assert_eq!(cpus.online, Some(vec![0, 1]));
        assert_eq!(cpus.cores, None);
        let empty = dir.join("empty");
        std::fs::create_dir_all(empty.join("cpu0/cache")).unwrap();
        assert!(read_caches(&empty).unwrap_err().contains("no `index*`"));
    }
}
