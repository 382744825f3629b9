//! Issue 59: the user's guide (`docs/`, an mdBook) and the READMEs are checked, not trusted.
//!
//! - every internal link and anchor of the book, `README.md` and `python/README.md` resolves, and
//!   every chapter is in `docs/src/SUMMARY.md`;
//! - every shell block marked runnable (a `<!-- runnable -->` line right above a ```` ```sh ````
//!   fence, or `<!-- runnable: exit N -->` for a block that must exit N) is run by `bash -e` with
//!   this build's `nmc` first on `PATH`, in a fresh folder that holds links to `scenarios/` and
//!   `sweeps/`, and must exit as its marker says;
//! - `docs/src/reference/commands.md` is every subcommand's `--help`, generated from the same clap
//!   definition as the man pages: a new or changed flag fails until the page is regenerated
//!   (`NMC_BLESS_DOCS=1 cargo test --test cli book`), and a flag without a help line fails;
//!   every subcommand has a line in the README's and the reference's tables;
//! - every scenario key the built-in scenarios' models accept is named on
//!   `docs/src/reference/scenario-keys.md`: the keys are asked of `nmc run` itself, which names
//!   the fields a table takes when `--set` gives it an unknown one, and of the resolved IMP
//!   parameters `summary.json` holds.

use crate::{nmc, stderr, text, tmp};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", rel(p)))
}

/// Every page a reader meets: both READMEs and the book's chapters.
fn pages() -> Vec<PathBuf> {
    fn walk(d: &Path, v: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap_or_else(|e| panic!("{}: {e}", rel(d))) {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, v);
            } else if p.extension().is_some_and(|x| x == "md") {
                v.push(p);
            }
        }
    }
    let mut v = vec![root().join("README.md"), root().join("python/README.md")];
    walk(&root().join("docs/src"), &mut v);
    v.sort();
    v
}

/// A page read once: its headings' anchors, its links and its runnable blocks, each with its line.
struct Page {
    path: PathBuf,
    anchors: HashSet<String>,
    links: Vec<(usize, String)>,
    blocks: Vec<Block>,
}

struct Block {
    page: String,
    line: usize,
    exit: i32,
    script: String,
}

/// mdBook's heading id (mdbook-html's `id_from_content`; GitHub's is the same for these pages),
/// from the heading's text with its inline code and emphasis marks taken away.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c != '`' && c != '*')
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The line with its inline code spans taken out, so that a link written as code is not a link.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    for c in line.chars() {
        if c == '`' {
            code = !code;
        } else if !code {
            out.push(c);
        }
    }
    out
}

fn parse(path: &Path) -> Page {
    let body = read(path);
    let lines: Vec<&str> = body.lines().collect();
    let mut page = Page {
        path: path.to_path_buf(),
        anchors: HashSet::new(),
        links: Vec::new(),
        blocks: Vec::new(),
    };
    let mut fence: Option<String> = None;
    let mut marker: Option<(usize, i32)> = None;
    let mut block: Option<Block> = None;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let t = line.trim_start();
        if let Some(f) = &fence {
            if t.starts_with(f.as_str()) && t.trim() == f {
                fence = None;
                if let Some(b) = block.take() {
                    page.blocks.push(b);
                }
            } else if let Some(b) = &mut block {
                b.script.push_str(line);
                b.script.push('\n');
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            let f: String = t.chars().take_while(|&c| c == '`' || c == '~').collect();
            let info = t[f.len()..].trim();
            if let Some((m, exit)) = marker.take() {
                assert!(
                    info == "sh" || info == "bash",
                    "{}:{m}: a runnable marker must stand right above a ```sh block, not ```{info}",
                    rel(path)
                );
                block = Some(Block {
                    page: rel(path),
                    line: n,
                    exit,
                    script: String::new(),
                });
            }
            fence = Some(f);
            continue;
        }
        if let Some(rest) = t.strip_prefix("<!-- runnable") {
            let rest = rest.trim_end().trim_end_matches("-->").trim();
            let exit = match rest.strip_prefix(':') {
                None if rest.is_empty() => 0,
                Some(r) => r
                    .trim()
                    .strip_prefix("exit ")
                    .and_then(|c| c.trim().parse().ok())
                    .unwrap_or_else(|| {
                        panic!("{}:{n}: write `<!-- runnable: exit N -->`", rel(path))
                    }),
                None => panic!(
                    "{}:{n}: write `<!-- runnable -->` or `<!-- runnable: exit N -->`",
                    rel(path)
                ),
            };
            marker = Some((n, exit));
            continue;
        }
        if let Some((m, _)) = marker
            && !t.is_empty()
        {
            panic!(
                "{}:{m}: a runnable marker must stand right above a ```sh block",
                rel(path)
            );
        }
        if t.starts_with('#') {
            let level = t.chars().take_while(|&c| c == '#').count();
            if level <= 6 && t[level..].starts_with(' ') {
                let id = anchor(&t[level..]);
                let mut unique = id.clone();
                let mut k = 1;
                while !page.anchors.insert(unique.clone()) {
                    unique = format!("{id}-{k}");
                    k += 1;
                }
            }
        }
        let plain = without_code(line);
        for (at, _) in plain.match_indices("id=\"") {
            let rest = &plain[at + 4..];
            if let Some(end) = rest.find('"') {
                page.anchors.insert(rest[..end].to_string());
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            page.links.push((n, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    assert!(
        fence.is_none(),
        "{}: a code fence is never closed",
        rel(path)
    );
    page
}

/// `a/b/../c` as `a/c`, without asking the file system.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn book_links_and_anchors_resolve() {
    let pages: Vec<Page> = pages().iter().map(|p| parse(p)).collect();
    let by_path: BTreeMap<PathBuf, &Page> = pages.iter().map(|p| (p.path.clone(), p)).collect();
    let book = root().join("docs/src");
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in &pages {
        for (line, link) in &page.links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, frag) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = if file.is_empty() {
                page.path.clone()
            } else {
                normal(&page.path.parent().unwrap().join(file))
            };
            let at = format!("{}:{line}: `{link}`", rel(&page.path));
            if !target.exists() {
                bad.push(format!("{at}: no file {}", rel(&target)));
                continue;
            }
            if page.path.starts_with(&book) && !target.starts_with(&book) {
                bad.push(format!(
                    "{at}: leaves docs/src, so the built book cannot follow it"
                ));
                continue;
            }
            if !frag.is_empty() {
                match by_path.get(&target) {
                    Some(t) if t.anchors.contains(frag) => {}
                    Some(_) => bad.push(format!("{at}: no heading with the anchor #{frag}")),
                    None => bad.push(format!("{at}: an anchor into a file that is not a page")),
                }
            }
        }
    }
    // Every chapter is reachable from the book's table of contents.
    let summary = by_path[&book.join("SUMMARY.md")];
    let listed: BTreeSet<PathBuf> = summary
        .links
        .iter()
        .map(|(_, l)| normal(&book.join(l.split('#').next().unwrap())))
        .collect();
    for p in &pages {
        if p.path.starts_with(&book)
            && p.path != book.join("SUMMARY.md")
            && !listed.contains(&p.path)
        {
            bad.push(format!("{}: not in docs/src/SUMMARY.md", rel(&p.path)));
        }
    }
    assert!(
        checked > 100,
        "only {checked} links found: is the page parser reading the pages?"
    );
    assert!(
        bad.is_empty(),
        "{} broken links:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The anchor rule and the parser on a page of their own, so that the link check cannot pass by
/// finding nothing.
#[test]
fn book_parser_finds_headings_links_and_runnable_blocks() {
    assert_eq!(
        anchor(" Machine-readable output (`--json`)"),
        "machine-readable-output---json"
    );
    assert_eq!(anchor(" One server: `nmc serve`"), "one-server-nmc-serve");
    let d = tmp("book-parser");
    let p = d.join("page.md");
    std::fs::write(
        &p,
        "# A\n\n## A\n\n[x](other.md#b) and `[not](a link)`\n\n<!-- runnable: exit 2 -->\n```sh\nnmc run nothing\n```\n\n```sh\n# [no](link)\n```\n",
    )
    .unwrap();
    let page = parse(&p);
    assert_eq!(
        page.anchors,
        HashSet::from(["a".to_string(), "a-1".to_string()])
    );
    assert_eq!(page.links, vec![(5, "other.md#b".to_string())]);
    assert_eq!(page.blocks.len(), 1);
    assert_eq!((page.blocks[0].line, page.blocks[0].exit), (8, 2));
    assert_eq!(page.blocks[0].script, "nmc run nothing\n");
}

/// Runs one block; `Err` says how it differed from its marker.
fn run_block(b: &Block, i: usize) -> Result<(), String> {
    let dir = tmp(&format!("book-runnable-{i}"));
    for d in ["scenarios", "sweeps"] {
        std::os::unix::fs::symlink(root().join(d), dir.join(d)).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_nmc")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::fs::File::create(dir.join(".stdout")).unwrap();
    let err = std::fs::File::create(dir.join(".stderr")).unwrap();
    let mut child = {
        use std::os::unix::process::CommandExt as _;
        Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", &b.script])
            .current_dir(&dir)
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("bash: {e}"))?
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Whatever the block left running in the background (a server) ends with it.
    let _ = Command::new("kill")
        .args(["-TERM", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
    let tail = |f: &str| {
        let t = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        let lines: Vec<&str> = t.lines().collect();
        lines[lines.len().saturating_sub(5)..].join("\n")
    };
    let at = format!("{}:{}", b.page, b.line);
    match status.and_then(|s| s.code()) {
        Some(c) if c == b.exit => Ok(()),
        Some(c) => Err(format!(
            "{at}: the block exited {c}, its marker says {}; its stderr ended:\n{}",
            b.exit,
            tail(".stderr")
        )),
        None => Err(format!(
            "{at}: the block did not finish within 300 s (or ended on a signal)"
        )),
    }
}

#[test]
fn book_runnable_blocks_exit_as_the_text_says() {
    let blocks: Vec<Block> = pages().iter().flat_map(|p| parse(p).blocks).collect();
    assert!(
        blocks.len() >= 5,
        "only {} runnable blocks found",
        blocks.len()
    );
    let failed: Vec<String> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| run_block(b, i).err())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} runnable blocks failed:\n{}",
        failed.len(),
        blocks.len(),
        failed.join("\n")
    );
}

/// `nmc`'s subcommands, depth first, from the "Commands:" section of each one's help.
fn command_tree() -> Vec<Vec<String>> {
    fn visit(path: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = nmc(&args);
        assert!(o.status.success(), "nmc {}: {}", args.join(" "), stderr(&o));
        let help = text(&o.stdout);
        let subs: Vec<String> = help
            .split("\nCommands:\n")
            .nth(1)
            .map(|s| {
                s.lines()
                    .take_while(|l| l.starts_with("  "))
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|&c| c != "help")
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        out.push(path.clone());
        for s in subs {
            let mut p = path.clone();
            p.push(s);
            visit(p, out);
        }
    }
    let mut out = Vec::new();
    visit(Vec::new(), &mut out);
    out
}

fn commands_page(tree: &[Vec<String>]) -> String {
    let mut page = String::from(
        "# Every subcommand and flag\n\n<!-- Generated by `NMC_BLESS_DOCS=1 cargo test --test cli book` (tests/cli/book.rs) \
         from `nmc … --help`; do not edit by hand. -->\n\n\
         Each section is what `nmc … --help` prints: the same clap definition the command line parses \
         with, and that `nmc man` and `nmc completions` are generated from, so this page cannot drift \
         from the binary (a test regenerates it and fails on any difference). `-h` prints the short \
         form. Exit codes, units and the one-line errors: [Subcommands, exit codes, units](cli.md).\n",
    );
    for path in tree {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = text(&nmc(&args).stdout);
        let name = std::iter::once("nmc")
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        page.push_str(&format!(
            "\n## {name}\n\n```text\n{}\n```\n",
            help.trim_end()
        ));
    }
    page
}

/// The options and arguments of a short help (`-h`) that have no help text: none on the flag's
/// line, and none indented below it (where clap puts it when some help is long).
fn undocumented(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = "";
    let lines: Vec<&str> = help.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with(' ') {
            section = l;
            continue;
        }
        let flag = l.trim_start().starts_with(['-', '<', '[']);
        let indent = l.len() - l.trim_start().len();
        let below = lines.get(i + 1).is_some_and(|n| {
            let t = n.trim_start();
            n.len() - t.len() > indent && !t.is_empty() && !t.starts_with('-')
        });
        if (section == "Options:" || section == "Arguments:")
            && flag
            && !l.trim().contains("  ")
            && !below
        {
            out.push(l.trim().to_string());
        }
    }
    out
}

#[test]
fn book_undocumented_flags_are_found() {
    let help = "Usage: nmc x\n\nArguments:\n  <A>  An argument\n  <B>\n\nOptions:\n      --long <L>\n          Its help\n      --bare\n  -h, --help  Print help\n";
    assert_eq!(
        undocumented(help),
        vec!["<B>".to_string(), "--bare".to_string()]
    );
}

#[test]
fn book_commands_reference_is_the_clap_definition() {
    let tree = command_tree();
    assert!(tree.len() > 15, "only {} subcommands found", tree.len());
    // Every option and argument says what it is.
    let mut undocumented_all = Vec::new();
    for path in &tree {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let help = text(&nmc(&args).stdout);
        for l in undocumented(&help) {
            undocumented_all.push(format!("nmc {}: {l}", path.join(" ")));
        }
    }
    assert!(
        undocumented_all.is_empty(),
        "options without a help line:\n{}",
        undocumented_all.join("\n")
    );
    // Every subcommand has its line in the README's table and in the reference's.
    for page in ["README.md", "docs/src/reference/cli.md"] {
        let body = read(&root().join(page));
        let missing: Vec<String> = tree
            .iter()
            .filter(|p| p.len() == 1)
            .filter(|p| {
                !body
                    .lines()
                    .any(|l| l.starts_with('|') && l.contains(&format!("`nmc {}", p[0])))
            })
            .map(|p| p[0].clone())
            .collect();
        assert!(
            missing.is_empty(),
            "{page}: no line in its table of subcommands for nmc {}",
            missing.join(", nmc ")
        );
    }
    let want = commands_page(&tree);
    let file = root().join("docs/src/reference/commands.md");
    if std::env::var_os("NMC_BLESS_DOCS").is_some() {
        std::fs::write(&file, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&file).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "docs/src/reference/commands.md differs from the command line from line {}: regenerate it with \
             `NMC_BLESS_DOCS=1 cargo test --test cli book` and review the diff",
            first + 1
        );
    }
}

const PROBE: &str = "nmc_book_probe";

/// `nmc run scen --set s ...` with `sets`, which must be refused; its stderr. `duration=0s`
/// comes first: a scenario that parses is refused by it (after the unknown fields, which serde
/// names first), so that no probe runs a simulation.
fn refused(scen: &str, sets: &[String], out: &Path) -> String {
    let mut args = vec![
        "run".to_string(),
        scen.to_string(),
        "--set".into(),
        "duration=0s".into(),
    ];
    for s in sets {
        args.push("--set".into());
        args.push(s.clone());
    }
    args.push("--out".into());
    args.push(out.to_str().unwrap().into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = nmc(&args);
    assert!(
        !o.status.success(),
        "nmc {} was not refused",
        args.join(" ")
    );
    stderr(&o)
}

/// The names serde lists after `what` (``unknown field `x`, `` or ``unknown variant `x`, ``):
/// ``expected one of `a`, `b` ``, ``expected `a` `` or `there are no fields`.
fn expected(e: &str, what: &str) -> Option<Vec<String>> {
    let rest = e.split(what).nth(1)?;
    let rest = rest.split_once("`, ")?.1.lines().next()?;
    if rest.starts_with("there are no") {
        return Some(Vec::new());
    }
    let list = rest
        .strip_prefix("expected one of ")
        .or_else(|| rest.strip_prefix("expected "))?;
    Some(
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect(),
    )
}

/// The fields a table of scenario `scen` (with `sets` applied) takes at `path`, as `nmc run`
/// names them when `--set` gives it one it does not know; `None` when `path` is not a table
/// there. A tagged table the scenario does not have (serde asks for its `kind` first) answers
/// `kind` alone; its variants are then probed one by one.
fn fields(scen: &str, path: &str, sets: &[String], out: &Path) -> Option<Vec<String>> {
    let key = if path.is_empty() {
        PROBE.to_string()
    } else {
        format!("{path}.{PROBE}")
    };
    let mut with = sets.to_vec();
    with.push(format!("{key}=1"));
    let e = refused(scen, &with, out);
    if let Some(f) = expected(&e, &format!("unknown field `{PROBE}")) {
        return Some(f);
    }
    e.contains("missing field `kind`")
        .then(|| vec!["kind".to_string()])
}

/// The variants of the tagged table at `path` (its `kind`s), as `nmc run` names them when
/// `--set` gives it one it does not know; `None` when `kind` there is not a tag.
fn variants(scen: &str, path: &str, sets: &[String], out: &Path) -> Option<Vec<String>> {
    let mut with = sets.to_vec();
    with.push(format!("{path}.kind={PROBE}"));
    expected(
        &refused(scen, &with, out),
        &format!("unknown variant `{PROBE}"),
    )
}

fn norm(p: &str) -> String {
    p.split('.')
        .map(|s| {
            if s.chars().all(|c| c.is_ascii_digit()) {
                "N"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// What the probes of every scenario share: the keys found, the deep tables already expanded,
/// and the tagged tables' variants and the absent arrays already tried (each once per key).
#[derive(Default)]
struct Found {
    keys: BTreeSet<String>,
    seen: HashSet<(String, Vec<String>)>,
    tried: HashSet<(String, String)>,
}

impl Found {
    /// True the first time `what` is tried at the key of `path`.
    fn first(found: &Mutex<Found>, path: &str, what: &str) -> bool {
        found
            .lock()
            .unwrap()
            .tried
            .insert((norm(path), what.to_string()))
    }
}

/// Adds the keys of the table at `path` (whose fields are `f`, with `sets` applied) and of
/// every table below it, including what no built-in scenario writes: each variant of a tagged
/// table (its `kind`), set in turn, and one element of an array of tables the scenario leaves
/// out. A table three or more levels down already expanded (the same path and fields: a subnet
/// hop, a traffic source's arrivals) is not expanded again.
fn expand(
    scen: &str,
    path: &str,
    f: Vec<String>,
    sets: &[String],
    out: &Path,
    found: &Mutex<Found>,
) {
    if norm(path).split('.').count() >= 3
        && !found.lock().unwrap().seen.insert((norm(path), f.clone()))
    {
        return;
    }
    // A tagged table (serde lists its fields without the tag): each of its kinds, set in turn.
    if Found::first(found, path, &format!("kind of {f:?}"))
        && let Some(kinds) = variants(scen, path, sets, out)
    {
        found
            .lock()
            .unwrap()
            .keys
            .insert(norm(&format!("{path}.kind")));
        for v in kinds {
            // The table replaced by one of that kind and nothing else, so that the probe
            // is the first field serde does not know.
            let mut with = sets.to_vec();
            with.push(format!("{path}={{kind=\"{v}\"}}"));
            if let Some(g) = fields(scen, path, &with, out) {
                tables_below(scen, path, g, &with, out, found);
            }
        }
    }
    tables_below(scen, path, f, sets, out, found);
}

/// The keys of the fields `f` of the table at `path`, and of the tables below them.
fn tables_below(
    scen: &str,
    path: &str,
    f: Vec<String>,
    sets: &[String],
    out: &Path,
    found: &Mutex<Found>,
) {
    for name in f {
        let child = if path.is_empty() {
            name
        } else {
            format!("{path}.{name}")
        };
        let key = norm(&child);
        found.lock().unwrap().keys.insert(key.clone());
        // A subnet hop's IMP network and traffic are the IMP model's own tables, checked where
        // a scenario has them at the top; the IMP profile's parameters are checked by name.
        if key == "network.hops.N.network"
            || key == "network.hops.N.traffic"
            || key.ends_with("network.params")
        {
            continue;
        }
        if let Some(g) = fields(scen, &child, sets, out) {
            expand(scen, &child, g, sets, out, found);
            continue;
        }
        // An array of tables: its first few elements (each may be of another kind).
        let mut elements = 0;
        for i in 0..4 {
            let Some(g) = fields(scen, &format!("{child}.{i}"), sets, out) else {
                break;
            };
            elements += 1;
            expand(scen, &format!("{child}.{i}"), g, sets, out, found);
        }
        // One the scenario leaves empty or out: an element made for the probe.
        if elements == 0 && Found::first(found, &child, "[]") {
            let mut with = sets.to_vec();
            with.push(format!("{child}=[{{}}]"));
            let first = format!("{child}.0");
            if let Some(g) = fields(scen, &first, &with, out) {
                expand(scen, &first, g, &with, out, found);
            }
        }
    }
}

/// Every key path the built-in scenarios' tables take, array indexes written `N`, with every
/// variant of their tagged tables and the arrays they leave out.
fn scenario_keys() -> BTreeSet<String> {
    let list = nmc(&["scenarios"]);
    assert!(list.status.success());
    let scenarios: Vec<String> = text(&list.stdout)
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    assert!(
        scenarios.len() > 10,
        "only {} built-in scenarios",
        scenarios.len()
    );
    let found = Mutex::new(Found::default());
    std::thread::scope(|s| {
        for (w, part) in scenarios.chunks(scenarios.len().div_ceil(2)).enumerate() {
            let found = &found;
            s.spawn(move || {
                let out = tmp(&format!("book-keys-{w}")).join("o");
                for scen in part {
                    let root = fields(scen, "", &[], &out)
                        .unwrap_or_else(|| panic!("nmc run {scen}: no field list"));
                    expand(scen, "", root, &[], &out, found);
                }
            });
        }
    });
    found.into_inner().unwrap().keys
}

#[test]
fn book_scenario_keys_are_all_on_the_reference_page() {
    let page = read(&root().join("docs/src/reference/scenario-keys.md"));
    let named: HashSet<&str> = page.split('`').skip(1).step_by(2).collect();
    let keys = scenario_keys();
    assert!(
        keys.len() > 80,
        "only {} scenario keys found: is the probe still answered?",
        keys.len()
    );
    // Keys no built-in scenario writes, which only the probes of other kinds and of absent
    // arrays reach: without them the test would pass a page that leaves them out.
    for k in [
        "traffic.N.length.mean",
        "traffic.N.length.min",
        "network.lines.N.queue_limit",
    ] {
        assert!(keys.contains(k), "the probes no longer reach `{k}`");
    }
    let mut missing: Vec<String> = keys
        .iter()
        .filter(|k| !k.ends_with(".*") && !named.contains(k.as_str()))
        .cloned()
        .collect();
    // The IMP profile's parameters, each as the resolved configuration names it.
    let out = tmp("book-params");
    let o = nmc(&[
        "run",
        "ko-v2-chain",
        "--set",
        "duration=1s",
        "--out",
        out.join("o").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("o/summary.json"))).unwrap();
    let params = summary["config"]["resolved_params"]
        .as_object()
        .expect("resolved_params in summary.json");
    assert!(params.len() > 40);
    for p in params.keys() {
        let k = format!("network.params.{p}");
        if !named.contains(k.as_str()) {
            missing.push(k);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/src/reference/scenario-keys.md does not name {} scenario keys (as `key`): {}",
        missing.len(),
        missing.join(", ")
    );
}
