"""The report as a document: built once from the results (report/build.py), rendered by every format
(report/render.py). A renderer knows how to draw each kind of block and nothing of the study, so
report.html and report.md cannot drift: they have the same sections, in the same order, with the
same tables, notes and warnings.

Plain data: text is plain text (renderers escape it), tables are strings.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Strong:
    """A bold run of text inside a paragraph."""

    text: str


@dataclass
class Paragraph:
    """Text; muted for explanatory notes (smaller and grey in HTML). text is a string, or a list of
    strings and Strong parts."""

    text: str | list[str | Strong]
    muted: bool = False

    @property
    def parts(self) -> list[str | Strong]:
        return [self.text] if isinstance(self.text, str) else list(self.text)

    @property
    def plain(self) -> str:
        return "".join(p.text if isinstance(p, Strong) else p for p in self.parts)


@dataclass
class Bullets:
    items: list[str]


NOTICE_KINDS = {"warn": "⚠", "fail": "✗"}


@dataclass
class Notice:
    """A warning ('warn': what to look at or do) or a failure ('fail': a run that failed)."""

    kind: str
    text: str

    def __post_init__(self):
        if self.kind not in NOTICE_KINDS:
            raise ValueError(f"notice kind {self.kind!r}: one of {', '.join(NOTICE_KINDS)}")

    @property
    def icon(self) -> str:
        return NOTICE_KINDS[self.kind]


@dataclass
class Table:
    head: list[str]
    rows: list[list[str]]


@dataclass
class Figure:
    """A chart as SVG. HTML inlines it (in an element with this id, when given); Markdown, which
    cannot, says in a line what the chart in report.html shows (caption)."""

    svg: str
    id: str | None = None
    caption: str = ""
    kind: str = ""  # an extra CSS class in HTML, e.g. "timeline"


@dataclass
class Section:
    """A heading (level 2 or 3) and what is under it; aside is a muted addition to the heading."""

    title: str
    level: int = 2
    blocks: list["Block"] = field(default_factory=list)
    aside: str = ""

    def add(self, *blocks: "Block") -> "Section":
        self.blocks.extend(blocks)
        return self


Block = Paragraph | Bullets | Notice | Table | Figure | Section


@dataclass
class Report:
    title: str
    subtitle: Paragraph
    sections: list[Section] = field(default_factory=list)

    def walk(self) -> Iterator[Block]:
        """Every block, sections included, in document order (depth first)."""

        def go(blocks):
            for b in blocks:
                yield b
                if isinstance(b, Section):
                    yield from go(b.blocks)

        yield from go(self.sections)

    def all_sections(self) -> list[Section]:
        return [b for b in self.walk() if isinstance(b, Section)]

    def tables(self) -> list[Table]:
        return [b for b in self.walk() if isinstance(b, Table)]
