"""Values from a user (paths of data and intermediate dirs, names) on the way into a process's command line or into
a setting that a program splits: each one reaches it whole, or is refused in one line.

Why: tierbench runs as root. A path is safe as one argv element (the engines pass lists, never a shell string), but
several settings are lists in one string: Spark splits spark.*.extraJavaOptions at whitespace (a data dir named
`x -javaagent:/tmp/a.jar` ran that agent as root in the driver), and spark.local.dir, spark.jars, Hadoop's
mapreduce.cluster.local.dir and FileInputFormat's input paths at commas. Hadoop's Configuration also expands
`${...}` in values (`${env.AWS_SECRET_ACCESS_KEY}` in a path would become a folder named after the secret). Such
a format cannot carry these characters: the value is refused, or tierbench uses a path of its own (spark_tmp.py).
"""

import re

from ..errors import UserError

# what an option word in a whitespace-split list may hold: no whitespace, quotes, backslashes or shell characters
OPTION_WORD = re.compile(r"^[A-Za-z0-9_./@%+=:,-]+$")


def _shown(value) -> str:
    return repr(str(value))[:200]


def list_item(value, sep: str, setting: str, hadoop: bool = False) -> str:
    """`value` as one item of the `sep`-separated list `setting`, refused in one line when it cannot be one."""
    text = str(value)
    bad = [c for c in (sep, "\n", "\r", "\0") if c in text]
    if hadoop and "${" in text:
        bad.append("${")
    if bad:
        raise UserError(f"{_shown(text)} cannot be one item of {setting} (a {sep!r}-separated list; it holds "
                        f"{bad[0]!r}): rename the folder, or choose another path")
    return text


def joined(values, setting: str, sep: str = ",", hadoop: bool = False) -> str:
    """The `sep`-separated list `setting` of `values`, each checked to stay one item (list_item)."""
    return sep.join(list_item(v, sep, setting, hadoop) for v in values)


def conf_value(value, setting: str) -> str:
    """A single Hadoop setting's value: Configuration expands `${...}` in it, so a path holding one is refused."""
    text = str(value)
    if "${" in text or "\n" in text or "\0" in text:
        raise UserError(f"{_shown(text)} cannot be the value of {setting} (Hadoop would expand '${{...}}' in it, or it "
                        "holds a newline): rename the folder, or choose another path")
    return text


def option_word(value, setting: str) -> str:
    """A value placed in a whitespace-separated option string (spark.*.extraJavaOptions): only plain characters."""
    text = str(value)
    if not OPTION_WORD.match(text):
        raise UserError(f"{_shown(text)} cannot go into {setting}, which Spark splits at whitespace and quotes: "
                        "choose a path of plain characters (letters, digits, . _ - / + @ % :)")
    return text
