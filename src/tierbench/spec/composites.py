"""What the report adds up from several workloads, as the studies did: `[[pipelines]]` (jobs run one after the other
as one job, e.g. SanDisk's TeraGen + TeraSort totals) and `[mix]` (a weighted workload mix: Cloudera's cost per
performance over a mix beside cost per TB). Analysis only: neither changes what runs, so neither is fingerprinted."""

import math

from ..errors import SpecError
from ..fields import unknown_fields

PIPELINE_KEYS = ("name", "workloads")
TERA_PIPELINE = ("teragen", "terasort", "teravalidate")


def default_pipelines(workloads: list[dict]) -> list[dict]:
    """TeraGen + TeraSort + TeraValidate when the study runs each exactly once (one label of each)."""
    labels = {name: [w["label"] for w in workloads if w["name"] == name] for name in TERA_PIPELINE}
    if all(len(found) == 1 for found in labels.values()):
        return [{"name": "+".join(TERA_PIPELINE), "workloads": [labels[n][0] for n in TERA_PIPELINE]}]
    return []


def parse_pipelines(src: str, raw, workloads: list[dict]) -> tuple[dict, ...]:
    """[[pipelines]] name = "...", workloads = [labels] (two or more of the study's workload labels)."""
    if raw is None:
        return tuple(default_pipelines(workloads))
    labels = [w["label"] for w in workloads]
    if not isinstance(raw, list):
        raise SpecError(src, "pipelines", 'expected a list of tables: [[pipelines]] name = "tera", workloads = ["teragen", "terasort"]')
    out, names = [], set()
    for i, p in enumerate(raw):
        where = f"pipelines[{i}]"
        if not isinstance(p, dict):
            raise SpecError(src, where, f"expected a table with {', '.join(PIPELINE_KEYS)}, got {p!r}")
        unknown_fields(src, f"{where}.", sorted(p), PIPELINE_KEYS, problem="unknown field; accepted")
        members = p.get("workloads")
        if not isinstance(members, list) or len(members) < 2 or not all(isinstance(m, str) for m in members):
            raise SpecError(src, f"{where}.workloads", f"expected two or more workload labels, got {members!r}")
        for m in members:
            if m not in labels:
                raise SpecError(src, f"{where}.workloads", f"{m!r} is not a workload of this study; accepted: {', '.join(labels)}")
        if len(set(members)) != len(members):
            raise SpecError(src, f"{where}.workloads", "a workload is listed twice")
        name = p.get("name", "+".join(members))
        if not isinstance(name, str) or not name or name in names:
            raise SpecError(src, f"{where}.name", f"expected a distinct name, got {name!r}")
        names.add(name)
        out.append({"name": name, "workloads": list(members)})
    return tuple(out)


def parse_mix(src: str, raw, workloads: list[dict]) -> dict:
    """[mix] LABEL = weight: how often each workload runs in the mix (any positive unit: jobs per day, shares)."""
    if raw is None:
        return {}
    labels = [w["label"] for w in workloads]
    if not isinstance(raw, dict) or not raw:
        raise SpecError(src, "mix", 'expected a table of workload label = weight, e.g. [mix] terasort = 2, wordcount = 1')
    out = {}
    for label, weight in raw.items():
        if label not in labels:
            raise SpecError(src, f"mix.{label}", f"not a workload of this study; accepted: {', '.join(labels)}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or math.isnan(weight) or weight <= 0:
            raise SpecError(src, f"mix.{label}", f"expected a weight > 0 (how often it runs in the mix), got {weight!r}")
        out[label] = float(weight)
    return out
