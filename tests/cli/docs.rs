//! README.md and docs/: README stays a short guide that names the test
//! command and leads to every reference page, and no link between the pages
//! points at a file or a heading that is not there (sections moved between
//! pages are the usual way a link breaks).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::fixtures::{read, repo_root as root};

/// docs/*.md, by their path from the repository root.
fn doc_pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    pages
}

/// The lines of a Markdown text outside fenced code blocks, with inline code
/// spans kept as their text (a heading's slug keeps what its code says).
fn prose_lines(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push(line.to_string());
        }
    }
    out
}

/// GitHub's anchor of a heading: lowercase, only letters, digits, `-`, `_`
/// and spaces kept, spaces made `-`.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .iter()
        .filter_map(|l| l.strip_prefix('#').map(|h| h.trim_start_matches('#').trim()))
        .map(slug)
        .collect()
}

/// The targets of the inline links `[text](target)` of a text, outside code
/// (an inline code span may show link syntax as an example).
fn link_targets(text: &str) -> Vec<String> {
    let mut out = vec![];
    for line in prose_lines(text) {
        // Drop inline code spans: `...`.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn the_link_checker_finds_links_and_anchors_as_github_makes_them() {
    let text = "# Wiring: `ragger init --agent`\n## Backlogs: parallel calls\n\
                see [a](other.md#x) and `[not](a link)`\n```\n[code](x.md)\n```\n[b](#backlogs-parallel-calls)\n";
    assert_eq!(link_targets(text), ["other.md#x", "#backlogs-parallel-calls"]);
    let a = anchors(text);
    assert!(a.contains("wiring-ragger-init---agent"), "{a:?}");
    assert!(a.contains("backlogs-parallel-calls"), "{a:?}");
}

#[test]
fn readme_and_docs_links_point_at_files_and_headings_that_exist() {
    let mut sources = vec!["README.md".to_string()];
    sources.extend(doc_pages());
    let mut checked = 0;
    for source in &sources {
        let text = read(source);
        let dir = Path::new(source).parent().unwrap_or(Path::new(""));
        for target in link_targets(&text) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let rel: PathBuf = if file.is_empty() { PathBuf::from(source) } else { dir.join(file) };
            let path = root().join(&rel);
            assert!(path.exists(), "{source}: the link ({target}) points at {} which does not exist", rel.display());
            if let Some(anchor) = anchor {
                let there = anchors(&std::fs::read_to_string(&path).unwrap());
                assert!(
                    there.contains(anchor),
                    "{source}: no heading #{anchor} in {} for the link ({target})",
                    rel.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "the pages link to each other: {checked} links checked");
}

#[test]
fn readme_is_a_short_guide_that_names_the_test_command_and_links_every_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md is a five-minute read (issue 34): {lines} lines; move reference to docs/");
    // CI runs exactly the README's test command (.ci/run).
    assert!(readme.contains("scripts/test.sh    # the tests (what CI runs)"), "README names scripts/test.sh");
    assert!(read(".ci/run").contains("exec scripts/test.sh"));
    let targets: BTreeSet<String> =
        link_targets(&readme).into_iter().map(|t| t.split('#').next().unwrap().to_string()).collect();
    let pages = doc_pages();
    assert!(pages.len() >= 4, "the reference lives in docs/: {pages:?}");
    for page in pages {
        assert!(targets.contains(&page), "README does not link {page}");
    }
}
