"""The shape of stored JSON, checked before anything reads it.

study.json and runs.jsonl are files a user can edit, copy half-way or hand-make: valid JSON of the wrong shape
(a record that is a list, `"status": 5`, `"wall_s": "fast"`) would otherwise surface as a traceback deep in
the analysis. A schema here says, per field, what the analysis, the report and the model read (schema.py);
`problem(kind, value)` says in one phrase what is wrong, naming the field.

A schema is made of kinds: STR, INT, NUM, BOOL, DIGITS, ANY, OneOf(...), Nullable(kind), ListOf(kind),
MapOf(kind) (an object of any keys, each value of the kind) and Obj({...}) (named fields; a name ending in
"?" is optional). An Obj allows fields it does not name, since newer versions add fields: of any kind, or of the
kind `rest` says, or none when `closed` (what is read as a whole, into a dataclass).
"""

import math
import re

Where = tuple  # of field names (str) and list indexes (int), from the checked value down


class Kind:
    name = "a value"  # what is accepted, as said in a message ("a number", "a str")

    def check(self, value) -> tuple[Where, str] | None:
        """None when value is of this kind; else (where below value, what is wrong there)."""
        return None if self.accepts(value) else ((), f"not {self.name}: it is {describe(value)}")

    def accepts(self, value) -> bool:
        return True


class _Leaf(Kind):
    def __init__(self, name: str, test):
        self.name, self.accepts = name, test


def _finite(v) -> bool:
    # JSON allows NaN and Infinity (Python writes them) and integers past a float's range: none is a measurement
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


STR = _Leaf("a str", lambda v: isinstance(v, str))
INT = _Leaf("an int", lambda v: isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1 << 63)  # (a count)
NUM = _Leaf("a number", _finite)
BOOL = _Leaf("true or false", lambda v: isinstance(v, bool))
DIGITS = _Leaf("a str of digits", lambda v: isinstance(v, str) and re.fullmatch(r"\s*[0-9]{1,18}\s*", v) is not None)
ANY = Kind()


class OneOf(Kind):
    def __init__(self, *values):
        self.values = values
        self.name = "one of " + ", ".join(map(repr, values))

    def accepts(self, value) -> bool:
        return isinstance(value, str) and value in self.values


class Nullable(Kind):
    def __init__(self, kind: Kind):
        self.kind = kind
        self.name = f"{kind.name} or null"

    def check(self, value):
        if value is None:
            return None
        found = self.kind.check(value)
        # the value itself is wrong: say that null would do too
        return ((), f"not {self.name}: it is {describe(value)}") if found and not found[0] else found


class _Each(Kind):
    """A container whose every item is of one kind: the first wrong item named by its index or key."""
    container: type = list
    name = "a list"

    def __init__(self, kind: Kind):
        self.kind = kind

    def check(self, value):
        if not isinstance(value, self.container):
            return (), f"not {self.name}: it is {describe(value)}"
        for at, item in (value.items() if isinstance(value, dict) else enumerate(value)):
            found = self.kind.check(item)
            if found:
                return (at, *found[0]), found[1]
        return None


class ListOf(_Each):
    container, name = list, "a list"


class MapOf(_Each):
    container, name = dict, "an object"


class Obj(Kind):
    def __init__(self, fields: dict[str, Kind], rest: Kind = ANY, closed: bool = False):
        """`rest`: the kind of every other field's value; `closed`: no other field (what is read as a whole)."""
        self.fields = [(k.rstrip("?"), kind, not k.endswith("?")) for k, kind in fields.items()]
        self.rest, self.closed = rest, closed
        self.name = "an object"

    def check(self, value):
        if not isinstance(value, dict):
            return (), f"not an object: it is {describe(value)}"
        for key, kind, required in self.fields:
            if key not in value:
                if required:
                    return (key,), f"missing or not {kind.name}"
                continue
            found = kind.check(value[key])
            if found:
                where, what = found
                if required and not where:  # (the wording older tierbench versions gave, which tests match)
                    what = f"missing or {what}"
                return (key, *where), what
        named = [k for k, _, _ in self.fields]
        other = [k for k in value if k not in named]
        if self.closed and other:
            return (other[0],), f"not one of its fields ({', '.join(named)})"
        return MapOf(self.rest).check({k: value[k] for k in other}) if self.rest is not ANY else None


def describe(value) -> str:
    """What a JSON value is, shortly: a string ('fast'), a number (5), a list, an object, null, true."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return f"a number ({text if len(text) <= 24 else text[:20] + '...'})"
    if isinstance(value, str):
        return f"a string ({value!r})" if len(value) <= 40 else f"a string ({value[:37]!r}...)"
    return {list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def where_text(path: Where) -> str:
    """A path as a message names it: storage[1].name"""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def problem(kind: Kind, value, within: str = "") -> str | None:
    """What is wrong with value, in one phrase naming the field (`within`: the path of value itself, e.g. "spec"):
    "`wall_s` is not a number or null: it is a string ('fast')", "spec.storage[0]: `name` is missing or not a str"."""
    found = kind.check(value)
    if found is None:
        return None
    path, what = found
    parent = where_text((within, *path[:-1]) if within else path[:-1])
    if not path:
        return f"{within or 'it'} is {what}"
    if isinstance(path[-1], int):
        return f"`{where_text((within, *path) if within else path)}` is {what}"
    return f"{parent + ': ' if parent else ''}`{path[-1]}` is {what}"
