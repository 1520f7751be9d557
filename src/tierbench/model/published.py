"""The model against the published studies (`tierbench predict --published`): every runtime the SanDisk 2014
studies published for a workload tierbench runs, predicted from the user's own runs on the studies' cluster as
published (shipped: clusters/sandisk-*.toml) at the studies' sizes, beside the published figure
(analysis/published.toml, copied from the papers), with the error; then each configuration's runtime ratio to
all-HDD's, and whether the configurations come out in the published order.

A prediction comes from the scale model when the results are one of that cluster at that size (model/transfer.py:
a configuration of the study emulated those drives on a node shrunk from that cluster's), else from the resource
model (model/predict.py) calibrated on the study's runs. The Cloudera, FlashBlade and Intel studies published
findings, not runtimes of a cluster tierbench has a description of: they are not predicted here.
"""

import statistics
import tomllib
from dataclasses import dataclass
from importlib import resources

from ..store import ResultsDir
from .hardware import load_hardware
from .answer import SCALE, answer
from .labels import FITTED, PREDICTED, SUMMED, ratio_label, scale_label

TESTDFSIO_BYTES = 512 * 2000 * (1 << 20)  # 512 files x 2000 MB (TestDFSIO's MB is 2^20 bytes)
TERA_BYTES = 10**12  # TeraGen 1 TB: 10^10 rows of 100 bytes
BASELINE = "all_hdd"
TOTAL = "total"  # TeraGen + TeraSort, as the TeraSort study's last column
HARDWARE = {"all_hdd": "sandisk-all-hdd", "all_ssd": "sandisk-all-ssd", "hdd_plus_ssd_intermediate": "sandisk-hybrid"}
RATIO_WITHIN, RUNTIME_WITHIN = 0.20, 0.25  # issue 34's bounds, for the summary's counts


@dataclass(frozen=True)
class PublishedStudy:
    section: str          # in analysis/published.toml
    size_bytes: int
    columns: tuple        # (workload, its column in the section's results) pairs
    configs: tuple        # the configurations published, the baseline first


STUDIES = (
    PublishedStudy("sandisk_testdfsio_2014", TESTDFSIO_BYTES, (("dfsio-write", 1), ("dfsio-read", 0)), ("all_hdd", "all_ssd")),
    PublishedStudy("sandisk_terasort_2014", TERA_BYTES, (("teragen", 0), ("terasort", 1), (TOTAL, 2)),
                   ("all_hdd", "hdd_plus_ssd_intermediate", "all_ssd")),
)


def published() -> dict:
    return tomllib.loads(resources.files("tierbench.analysis").joinpath("published.toml").read_text())


def _predicted(model, studies: list, workload: str, config: str, size: int, error: float | None) -> dict | None:
    """One workload on one published configuration, answered as every route answers (model/answer.py); None when
    the runs have no such workload."""
    hw = load_hardware(HARDWARE[config])
    for job in dict.fromkeys(p.job for p in model.profiles if p.workload == workload):
        a = answer(model, studies, job, hw, size, error)
        if a:
            return {"seconds": a.seconds, "interval": a.interval, "method": a.method, "how": a.how,
                    "cpu_borrowed": bool(a.cpu_borrowed), "pooled": a.pooled, "config": a.config}
    return None


def _runtime_label(workload: str, config: str, p: dict, studies: list) -> str:
    return scale_label(workload, load_hardware(HARDWARE[config]), studies) if p["method"] == SCALE else PREDICTED


def _pooled_labels(rows: list[dict]) -> None:
    """A pooled answer is its partner's figure: a configuration whose runtime is the very figure of a FITTED one
    (the same pooled runs) is fitted too."""
    for r in rows:
        twin = next((o for o in rows if o is not r and o["study"] == r["study"] and o["workload"] == r["workload"]
                     and o["predicted_s"] == r["predicted_s"] and o["label"].startswith(FITTED)), None)
        if twin and r["method"] == SCALE and "pooled" in r["how"]:
            r["label"] = twin["label"]


def _ratio_label(r: dict, base: dict) -> str:
    pooled = r["predicted_s"] == base["predicted_s"] and r["method"] == SCALE and "pooled" in r["how"]
    return ratio_label(r["label"], pooled)


def _runtime_rows(model, studies: list, error: float | None) -> tuple[list[dict], list[str]]:
    pub, rows, missing = published(), [], []
    for study in STUDIES:
        res = pub[study.section]["results"]
        for workload, col in study.columns:
            for config in study.configs:
                if workload == TOTAL:
                    parts = [r for r in rows if r["study"] == study.section and r["config"] == config]
                    if len(parts) != len(study.columns) - 1:
                        continue
                    spans = [r["interval"] for r in parts]
                    p = {"seconds": sum(r["predicted_s"] for r in parts),
                         "interval": None if None in spans else [sum(r[i] for r in spans) for i in (0, 1)],
                         "method": " + ".join(dict.fromkeys(r["method"] for r in parts)), "how": "the sum of the jobs",
                         "label": SUMMED}
                else:
                    p = _predicted(model, studies, workload, config, study.size_bytes, error)
                if p is None:
                    missing.append(f"{study.section} {workload}: the study has no {workload} runs")
                    break
                rows.append({"study": study.section, "workload": workload, "config": config,
                             "hardware": HARDWARE[config], "size_bytes": study.size_bytes,
                             "published_s": res[config][col], "predicted_s": p["seconds"], "interval": p["interval"],
                             "method": p["method"], "how": p["how"], "error": p["seconds"] / res[config][col] - 1,
                             "label": p.get("label") or _runtime_label(workload, config, p, studies)})
    _pooled_labels(rows)
    return rows, missing


def _ratio_rows(runtimes: list[dict]) -> list[dict]:
    """Each configuration's runtime over all-HDD's, published and predicted; the interval from the runtimes'."""
    by = {(r["study"], r["workload"], r["config"]): r for r in runtimes}
    out = []
    for (study, workload, config), r in by.items():
        base = by.get((study, workload, BASELINE))
        if config == BASELINE or base is None:
            continue
        pub, pred = r["published_s"] / base["published_s"], r["predicted_s"] / base["predicted_s"]
        out.append({"study": study, "workload": workload, "compared": f"{config} / {BASELINE}", "published_ratio": pub,
                    "predicted_ratio": pred, "interval": None if None in (r["interval"], base["interval"]) else
                    [r["interval"][0] / base["interval"][1], r["interval"][1] / base["interval"][0]],
                    "error": pred / pub - 1, "method": " + ".join(dict.fromkeys((base["method"], r["method"]))),
                    "label": _ratio_label(r, base)})
    return out


TIE = 0.01  # predicted runtimes this close are a tie: it contradicts no published order


def _ranks(runtimes: list[dict]) -> list[dict]:
    """Per study and workload: the configurations from fastest to slowest, published and predicted, and whether
    the prediction puts no pair the other way round (a tie within TIE puts no pair either way)."""
    groups: dict = {}
    for r in runtimes:
        groups.setdefault((r["study"], r["workload"]), []).append(r)
    out = []
    for (study, workload), rs in groups.items():
        if len(rs) < 2:
            continue
        published = sorted(rs, key=lambda r: r["published_s"])
        reversed_pairs = [(a["config"], b["config"]) for i, a in enumerate(published) for b in published[i + 1:]
                          if a["predicted_s"] > b["predicted_s"] * (1 + TIE)]
        predicted = sorted(rs, key=lambda r: r["predicted_s"])
        out.append({"study": study, "workload": workload, "published": [r["config"] for r in published],
                    "predicted": [r["config"] for r in predicted], "predicted_order": _order_text(predicted),
                    "right": not reversed_pairs, "reversed": reversed_pairs})
    return out


def _order_text(predicted: list[dict]) -> str:
    """The configurations fastest first, "a < b", a tie within TIE "a = b"."""
    text = predicted[0]["config"]
    for prev, r in zip(predicted, predicted[1:]):
        text += (" = " if r["predicted_s"] <= prev["predicted_s"] * (1 + TIE) else " < ") + r["config"]
    return text


def compare(model, results=(), error: float | None = None) -> dict:
    """The published studies' runtimes and ratios beside their predictions from `model` and, where `results`
    are scale models of the studies' cluster, from those; with the summary issue 34 judges the model by."""
    studies = [ResultsDir(r).load(analysed=True) for r in results]
    runtimes, missing = _runtime_rows(model, studies, error)
    ratios, ranks = _ratio_rows(runtimes), _ranks(runtimes)
    summary = {}
    for key, rows, bound in (("ratios", ratios, RATIO_WITHIN), ("runtimes", runtimes, RUNTIME_WITHIN)):
        errs = [abs(r["error"]) for r in rows if r["label"] == PREDICTED]
        left_out = {}
        for r in rows:
            if r["label"] != PREDICTED:
                kind = r["label"].split(":")[0]
                left_out[kind] = left_out.get(kind, 0) + 1
        if errs:
            summary[key] = {"median_abs_error": statistics.median(errs), "max_abs_error": max(errs),
                            "within": sum(e <= bound for e in errs), "of": len(errs), "bound": bound,
                            "left_out": left_out}
    if ranks:
        summary["ranks"] = {"right": sum(r["right"] for r in ranks), "of": len(ranks)}
    return {"runtimes": runtimes, "ratios": ratios, "ranks": ranks, "summary": summary, "not_covered": missing}
