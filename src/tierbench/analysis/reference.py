"""Recompute a published cost table (jobs/day, jobs in 3 years, $/job) from its runtimes and prices.

Reference files use the layout of published.toml beside this file (the studies' tables): a section
with `results.<config> = [runtimes...]`, `price_usd.<config>`, and the published
`jobs_per_day`, `jobs_3_years`, `usd_per_job` (a list per config when the table
covers several runtimes, else one number). Each paper rounded its own way; the
known ones are listed here, others are rounded half-up to the published digits.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from .cost import cost_per_job, published_rounding

# section -> (labels of the runtime columns, their index in results, rounding per figure)
KNOWN = {
    "sandisk_testdfsio_2014": (
        ("read", "write"), (0, 1),
        {"jobs_per_day": ("round", 2), "jobs_3_years": ("truncate", 0), "usd_per_job": ("truncate", 2)},
        "this paper rounds jobs/day but truncates jobs in 3 years and $/job (0.697 -> 0.69); its all-SSD read "
        "jobs/day, 178.15, is one unit above 86400 / 485 = 178.144",
    ),
    "sandisk_terasort_2014": (
        ("teragen+terasort",), (2,),
        {"jobs_per_day": ("round", 2), "jobs_3_years": ("round", 2), "usd_per_job": ("round", 2)},
        "this paper rounds every figure to 2 decimals; runtime is TeraGen + TeraSort",
    ),
}
FIGURES = ("jobs_per_day", "jobs_3_years", "usd_per_job")


@dataclass
class Row:
    config: str
    column: str
    runtime_s: float
    price_usd: float
    exact: dict  # figure -> unrounded value
    computed: dict  # figure -> rounded as the paper did
    published: dict  # figure -> as published
    status: dict  # figure -> "exact" | "last digit" | "MISMATCH"
    decimals: dict  # figure -> digits after the point, as published

    def shown(self, figure: str, which: str) -> str:
        return f"{getattr(self, which)[figure]:,.{self.decimals[figure]}f}"


def _decimals(x) -> int:
    s = repr(float(x))
    return 0 if s.endswith(".0") else len(s.split(".")[1])


PUBLISHED = Path(__file__).resolve().with_name("published.toml")  # the studies' tables, copied into the package


def load_section(ref: str) -> tuple[str, dict]:
    """`SECTION` of the published tables shipped with tierbench, or `FILE#SECTION` of a file of the same layout."""
    file, section = ref.rsplit("#", 1) if "#" in ref else (str(PUBLISHED), ref)
    p = Path(file)
    if not p.is_file():
        raise UserError(f"--reference: {file}: no such file")
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{file}: not valid TOML: {e}") from None
    if section not in data:
        raise UserError(f"{file}: no section [{section}]; sections: {', '.join(data)}")
    sec = data[section]
    for need in ("results", "price_usd") + FIGURES:
        if need not in sec:
            raise UserError(f"{file}#{section}: has no `{need}`, so there is no cost table to recompute")
    return section, sec


def recompute(ref: str, years: float = 3) -> tuple[list[Row], str]:
    section, sec = load_section(ref)
    rows = []
    labels, indexes, rounding, note = KNOWN.get(section, (None, None, {}, "rounded half-up to the published digits"))
    for config, results in sec["results"].items():
        if config not in sec["price_usd"]:
            raise UserError(f"{ref}: no price_usd for {config}")
        first = sec["jobs_per_day"][config]
        if labels is None:
            cols = [f"runtime {i}" for i in range(len(first))] if isinstance(first, list) else ["total"]
            idx = list(range(len(first))) if isinstance(first, list) else [len(results) - 1]
        else:
            cols, idx = labels, indexes
        for k, (col, i) in enumerate(zip(cols, idx)):
            c = cost_per_job(results[i], sec["price_usd"][config], years)
            exact = {"jobs_per_day": c.jobs_per_day, "jobs_3_years": c.jobs_in_period, "usd_per_job": c.usd_per_job}
            published = {f: (sec[f][config][k] if isinstance(sec[f][config], list) else sec[f][config]) for f in FIGURES}
            computed, status, decimals = {}, {}, {}
            for f in FIGURES:
                mode, dec = rounding.get(f, ("round", _decimals(published[f])))
                computed[f] = published_rounding(exact[f], dec, mode)
                decimals[f] = dec
                diff = abs(computed[f] - published[f])
                unit = 10 ** -dec
                status[f] = "exact" if diff < unit / 100 else ("last digit" if diff <= unit * 1.0001 else "MISMATCH")
            rows.append(Row(config, col, results[i], sec["price_usd"][config], exact, computed, published, status, decimals))
    return rows, note
