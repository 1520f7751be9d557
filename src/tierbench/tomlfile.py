"""Reading a user's TOML file (a study spec, a hardware description): every way it can fail is one SpecError line."""

import tomllib
from pathlib import Path

from .errors import SpecError


def read_toml(path, what: str, hint: str, missing: str = "") -> dict:
    """The file's table. `what` names the kind of file ("spec file"), `hint` what to give instead of a directory,
    `missing` what to add when there is no such file."""
    p = Path(path)
    if p.is_dir():
        raise SpecError(str(path), "", f"is a directory, not a {what}: {hint}")
    if not p.is_file():
        raise SpecError(str(path), "", f"no such {what}{missing}")
    try:
        return tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise SpecError(str(path), "", f"not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise SpecError(str(path), "", "not a text file") from None
    except OSError as e:
        raise SpecError(str(path), "", f"cannot read it: {e.strerror}") from None
