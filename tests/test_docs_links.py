"""The docs lead nowhere they should not: every link in README.md, docs/*.md and bench/NOTES.md is
followed, to a file of the repository and, for `#anchor`, to a heading of that page; nothing
points outside the repository (no `../`, no absolute path, no web address), every repository
path the pages name in `code` exists, so a module that moves takes its docs along, and no
command they give says `sudo`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PAGES = sorted([ROOT / "README.md", ROOT / "bench" / "NOTES.md", *(ROOT / "docs").glob("*.md")])
"""Every page of the docs."""
TOP_FOLDERS = ("arena", "bench", "docs", "proto", "sample_bots", "scripts", "tests", "tournaments")
"""A `code` span starting with one of these (and a slash) names a path in the repository."""
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
PLACEHOLDER = re.compile(r"[A-Z]{3,}")
"""A word in capitals (NAME, HASH, OUTPUT) stands for something: the span is a pattern."""


def prose(text: str) -> str:
    """The page without its code blocks and code spans, where a link is not a link."""
    return SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: GitHub's rule (lower case; spaces to
    hyphens; punctuation but hyphens and underscores dropped; code and link marks dropped)."""
    text = LINK.sub(r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page, repeated headings numbered as GitHub numbers them."""
    found: set[str] = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            base = anchor = slug(heading[1])
            number = 0
            while anchor in found:
                number += 1
                anchor = f"{base}-{number}"
            found.add(anchor)
    return found


def links(page: Path) -> list[str]:
    return [target for _, target in LINK.findall(prose(page.read_text()))]


def names(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_the_readme_is_read_in_ten_minutes() -> None:
    """What the arena is, the two commands, a first tournament, a first bot, where to go next;
    the rest is in docs/."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert "make run" in readme and "make test" in readme


def test_the_readme_leads_to_every_page_of_the_docs() -> None:
    """No page is an orphan: a newcomer reaches each from the README."""
    shown = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    docs = {page for page in PAGES if page.parent == ROOT / "docs"}
    assert docs <= shown


@pytest.mark.parametrize("page", PAGES, ids=names)
def test_every_link_leads_to_a_file_of_the_repository_and_its_heading(page: Path) -> None:
    for target in links(page):
        assert target, f"{names(page)}: an empty link"
        assert not re.match(r"[a-z][a-z0-9+.-]*:", target), f"{names(page)}: {target} leaves"
        assert not target.startswith("/"), f"{names(page)}: {target}: an absolute path"
        path, _, anchor = target.partition("#")
        assert ".." not in Path(path).parts, f"{names(page)}: {target} climbs out of its folder"
        file = (page.parent / path).resolve() if path else page
        assert file.is_relative_to(ROOT), f"{names(page)}: {target} leaves the repository"
        assert file.exists(), f"{names(page)}: {target}: no such file"
        if anchor:
            assert file.suffix == ".md", f"{names(page)}: {target}: an anchor of a non-page"
            assert anchor in anchors(file), f"{names(page)}: {target}: no such heading"


@pytest.mark.parametrize("page", PAGES, ids=names)
def test_no_text_points_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    assert "../" not in text, f"{names(page)}: a path that climbs out of the repository"
    assert not re.search(r"https?://", text), f"{names(page)}: a web address"


@pytest.mark.parametrize("page", PAGES, ids=names)
def test_no_command_says_sudo(page: Path) -> None:
    """The user may be root, without sudo: the docs say "as root, or with sudo" instead."""
    text = page.read_text()
    commands = [*FENCE.findall(text), *SPAN.findall(FENCE.sub("", text))]
    assert not [c for c in commands if re.search(r"\bsudo\b", c)], names(page)


@pytest.mark.parametrize("page", PAGES, ids=names)
def test_every_repository_path_it_names_exists(page: Path) -> None:
    for span in SPAN.findall(FENCE.sub("", page.read_text())):
        if not span.startswith(tuple(f"{top}/" for top in TOP_FOLDERS)):
            continue
        if " " in span or PLACEHOLDER.search(span):
            continue  # a command line or a pattern, not a path
        path = span.split(":")[0]  # `file.py:120`
        assert list(ROOT.glob(path.rstrip("/"))), f"{names(page)}: `{span}`: no such path"


def test_a_link_out_or_to_a_missing_heading_is_caught(tmp_path: Path) -> None:
    """The checks themselves, on pages that break them."""
    page = tmp_path / "page.md"
    page.write_text("# One `heading`, here\n\nSee [it](#one-heading-here) and [out](../x.md).\n")
    assert anchors(page) == {"one-heading-here"}
    assert links(page) == ["#one-heading-here", "../x.md"]
    assert slug("Is my new version better? `arena compare`") == (
        "is-my-new-version-better-arena-compare"
    )
