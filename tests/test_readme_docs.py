"""README.md is for users and short; docs/ pages each say what they answer, stay under 400 lines (lab logs
excepted), and every relative link in them resolves (files and #anchors)."""

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LAB = DOCS / "lab"

COMMANDS = (
    "./setup.sh && .venv/bin/tierbench quickstart",
    './setup.sh --test && .venv/bin/python -m pytest -q -m "not e2e" -n 2 && .venv/bin/python -m pytest -q -m e2e',
)


def _user_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if LAB not in p.parents)


def _all_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _prose(text: str) -> str:
    """The text without fenced code blocks, inline code, link targets and HTML comments."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"`[^`]*`", "", text)


# -- README ---------------------------------------------------------------------------------------------------------

def test_readme_is_short():
    assert len(README.read_text()) < 12_000


def test_readme_has_the_sections_and_the_two_commands_verbatim():
    text = README.read_text()
    headings = re.findall(r"^#+ (.+)$", text, flags=re.M)
    for h in ("Requirements", "Install"):
        assert h in headings, h
    for command in COMMANDS:
        assert command in text, command
    assert "](docs/report.png)" in text
    assert "<!-- quickstart-table: measured from a fresh clone" in text  # (where its figures come from, said where they stand)


def looks_like_hash(word: str) -> bool:
    """7-40 hex characters with at least one digit and one letter a-f: 'cd4c1f1', '00ee9ab'; not 'decade', 'added',
    '2026' or '1024'."""
    return (bool(re.fullmatch(r"[0-9a-f]{7,40}", word)) and bool(re.search(r"[0-9]", word))
            and bool(re.search(r"[a-f]", word)))


def lab_talk(text: str) -> list[str]:
    """What a user page should not say: commit hashes, run numbers, sessions, stops, issue numbers."""
    found = [w for w in re.findall(r"\b[0-9a-fA-F]{7,40}\b", text) if looks_like_hash(w.lower())]
    found += re.findall(r"\bruns? \d{1,4}(?:\s*(?:-|–|to|and)\s*\d{1,4})?\b", text, flags=re.I)
    found += re.findall(r"\b(?:sessions?|stops?|issue \d+)\b", text, flags=re.I)
    return found


def test_lab_talk_is_recognised():
    assert lab_talk("on 00ee9ab's code (runs 109-111), this stop's session; issue 34") == \
        ["00ee9ab", "runs 109-111", "stop", "session", "issue 34"]
    assert lab_talk("a decade added 1024 faded beads; 3 runs each; 2026-11-29; 0.98 (p = 0.30)") == []


def test_readme_has_no_lab_talk():
    assert lab_talk(README.read_text()) == []


def test_readme_specs_are_valid():
    """The README's first study parses as a spec, and so does each of its other storage tables inside it."""
    from tierbench.spec import parse_spec

    def anywhere(storage: dict) -> dict:  # (its /mnt/hdd1 is a user's disk: this machine has none to hold it)
        return {name: {**table, "create_dirs": True} for name, table in storage.items()}

    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(), flags=re.S)
    first = tomllib.loads(blocks[0])
    parse_spec({**first, "storage": anywhere(first["storage"])}, source="README.md")
    on_a_cluster = {**first, "engine": {**first["engine"], "master": "yarn"}}  # (what the README says around them)
    for block in blocks[1:]:
        extra = tomllib.loads(block)
        assert set(extra) == {"storage"}, block
        parse_spec({**on_a_cluster, "storage": anywhere(extra["storage"])}, source="README.md")


# -- docs/ ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_user_page_is_short_and_says_what_it_answers(page):
    lines = page.read_text().splitlines()
    assert len(lines) < 400, f"{page.name}: {len(lines)} lines (move details to a page of their own)"
    assert lines[0].startswith("# "), f"{page.name}: starts with its title"
    first = next(line for line in lines[1:] if line.strip())
    assert first.startswith("> **Answers:**"), f"{page.name}: the line after the title says what the page answers"


@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_user_page_has_no_lab_talk(page):
    """Sessions, issue numbers, commit hashes and run numbers belong in docs/lab/ ("runs 109-111"; "3 runs" is fine)."""
    text = _prose(page.read_text())
    assert not re.findall(r"\b(?:sessions?|issue \d+)\b", text, flags=re.I), page.name
    assert not [w for w in re.findall(r"\b[0-9a-f]{7,40}\b", text) if looks_like_hash(w)], page.name
    assert not re.findall(r"\bruns? \d{2,4}\b(?! (?:runs|repeats|times|s\b|ms\b|MB|GB|%))", text), page.name


def test_the_docs_index_links_every_user_page():
    index = DOCS / "README.md"
    linked = {(DOCS / target).resolve() for target in _links(index.read_text())}
    for page in _user_pages():
        if page != index:
            assert page.resolve() in linked, f"docs/README.md does not link {page.relative_to(DOCS)}"


def _links(text: str) -> list[str]:
    """Relative link targets (without their #anchor) of a markdown text, code blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        out.append(target.split("#")[0])
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    h = re.sub(r"[^\w\- ]", "", h.replace("`", ""))
    return h.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_slug():
    assert slug("`[scale]`: a scale model of a full-size job") == "scale-a-scale-model-of-a-full-size-job"
    assert slug("5. `tierbench advise`") == "5-tierbench-advise"
    assert slug("Gateways: `gateways`, `balancer`, `balancer_admin`") == "gateways-gateways-balancer-balancer_admin"


@pytest.mark.parametrize("page", _all_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.relative_to(ROOT)}: link to {target}: no such file"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.relative_to(ROOT)}: link to {target}: no such heading"
