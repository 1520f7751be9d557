"""Plain text as Markdown that reads as itself, for report.md.

The report's text is plain text (report/document.py), and some of it is the user's or a program's: the study's
and configurations' descriptions, names, a failed run's error message. In Markdown such text is markup: a
newline followed by "# x" is a heading, "| a | b |" on a line of its own a table row, "<script>" raw HTML
(which a Markdown viewer may render). Every piece of text report.md holds goes through md_inline (inside a
line: no line breaks, no HTML, no table cell break) or md_block (also at the start of a block: no heading,
list, quote or code fence marker), with backslash escapes (CommonMark: any ASCII punctuation), so the
text still reads well in the raw file.
"""

import re

# every line break a Markdown parser (or a viewer's) might honour: \r\n, \r, \n, \v, \f, NEL, LS, PS
LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
# \ first (so the escapes added after it are not doubled); | (a table's cell break); < where it could open raw HTML,
# a comment or an autolink (<b>, </x>, <!--, <?, <https:...>) and > where it could close a tag: "p < 0.05" and
# "a -> b" stay as they are, being no markup; & only where it would start an entity (&lt; would render as <)
SPECIAL = re.compile(r"[\\|]|<(?=[A-Za-z/!?])|(?<=[A-Za-z0-9\"'/])>|&(?=#?[0-9A-Za-z]+;)")
# what makes a block of something else when it starts a line: a heading (#), a list item (-, +, *, 1. or 1)),
# a quote (>), a code fence (``` or ~~~), a setext underline or rule (=, -, _), indentation
BLOCK_START = re.compile(r"(?P<mark>[#+*=_~`>-])|(?P<num>\d{1,9})(?P<dot>[.)])")


def md_inline(text) -> str:
    """Text inside a line of Markdown (a table cell, a heading after its #s, a bullet after its -)."""
    return SPECIAL.sub(lambda m: "\\" + m.group(0), LINE_BREAKS.sub(" ", str(text)))


def md_block(text) -> str:
    """Text that starts a block of Markdown (a paragraph, a list item): md_inline, and what would make it another
    kind of block at its start escaped."""
    return block_start(md_inline(text))


def block_start(md: str) -> str:
    """Markdown text (escaped already) made safe to start a block: a marker at its start escaped."""
    out = md.lstrip()  # (leading spaces: 4 make a code block)
    m = BLOCK_START.match(out)
    if not m:
        return out
    if m.group("mark"):
        return "\\" + out
    return m.group("num") + "\\" + out[m.end("num"):]


def md_heading(text) -> str:
    """A heading's text: md_inline, and a # at its end escaped (a closing sequence would be dropped)."""
    out = md_inline(text).rstrip()
    return out[:-1] + "\\#" if out.endswith("#") else out
