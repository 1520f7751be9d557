"""How every `tierbench ... --help` is laid out: at most MAX_WIDTH columns whatever the terminal, prose filled to
the width, and indented lines (examples, tables) kept as written so that an example stays one line to copy."""

import argparse
import shutil
import textwrap

MAX_WIDTH = 100  # a wide terminal would otherwise stretch a paragraph into a few unreadable 200-column lines


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout at min(terminal, MAX_WIDTH) columns. A description or epilog is written as paragraphs
    (separated by a blank line; their line breaks do not matter) and indented lines, which are kept as they are
    unless they are wider than MAX_WIDTH, then wrapped with a deeper indent."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:  # argparse's own default, capped: the terminal's columns less a margin of 2
            width = min(shutil.get_terminal_size().columns, MAX_WIDTH) - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def add_argument(self, action):
        super().add_argument(action)
        # argparse before 3.13 measures a command list's names without their own indent, so a name as long as
        # "quickstart" pushes its one-line summary onto the next line
        if action.help is not argparse.SUPPRESS and isinstance(action, argparse._SubParsersAction):
            for choice in action._get_subactions():
                length = len(self._format_action_invocation(choice)) + self._current_indent + self._indent_increment
                self._action_max_length = max(self._action_max_length, length)

    def _split_lines(self, text, width):  # an option's help; as argparse's, but "--fail-if-slower" stays whole
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        return "\n".join(laid_out(text, width, indent))


def laid_out(text: str, width: int, indent: str) -> list[str]:
    """text's lines: each paragraph filled to width, each indented line kept (wrapped only past MAX_WIDTH)."""
    lines: list[str] = []
    paragraph: list[str] = []

    def end_paragraph():
        if paragraph:
            lines.extend(textwrap.wrap(" ".join(paragraph), width, initial_indent=indent, subsequent_indent=indent,
                                       break_on_hyphens=False))
            paragraph.clear()

    for line in text.splitlines():
        if line and not line[0].isspace():
            paragraph.append(line.strip())
            continue
        end_paragraph()
        if not line.strip():
            lines.append("")
            continue
        deeper = indent + " " * (len(line) - len(line.lstrip()) + 4)
        lines.extend(textwrap.wrap(indent + line.rstrip(), MAX_WIDTH, subsequent_indent=deeper,
                                   drop_whitespace=True, break_on_hyphens=False) or [""])
    end_paragraph()
    return lines


def use_everywhere(parser: argparse.ArgumentParser) -> None:
    """HelpFormatter for parser and every sub-parser under it (a verb's own choice of argparse formatter
    would let its --help outgrow the width)."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                use_everywhere(sub)
