"""The model against every published result it has (model/corpus: the SanDisk TestDFSIO and TeraSort tables, the
Cloudera findings, the C3O Spark sort and grep runs on 2-12 EMR workers), study by study, leave-one-study-out.

A published study has no tierbench profile of its own, so each figure is predicted from recorded results (by default
the repo's fixtures; --from STUDY=DIR for others), carried to the study's cluster (model/clusters/*.toml; the
Cloudera layouts as pools of drives from corpus/cloudera.toml), node count and size, as `tierbench predict` does:
the scale model where the results are a scale model of that cluster at that size (model/transfer.py), else the
resource model calibrated on the results (model/predict.py), with the interval predict states (the scale model's
from its repeats; the resource model's +/- its median error reproducing the measured configurations).

Each figure is labelled: predicted; fitted (the published run a constant was set on: the SanDisk all-SSD TeraSort,
the shipped clusters' [cpu.terasort] rate); or structural (equal to another by construction: a pooled TeraGen).
The summary counts predicted figures only. Nothing in the model is fitted to the corpus, so for each held-out study
nothing is refit: the columns "as predicted" are the model's own. One constant is fitted here, leave-one-study-out:
a time scale (the median over the other papers of their median published / predicted runtime) and an 80% interval
from those papers' errors (each paper one vote), then applied to the held-out study ("LOSO" columns).

    .venv/bin/python bench/bench_validate.py [--from c3o-sort=RESULTS ...] [--figures]
"""

import argparse
import datetime
import json
import math
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from tierbench.model.corpus import Figure, Study, studies
from tierbench.model.hardware import catalog, load_hardware
from tierbench.model.predict import Machine, Pool, machine_of
from tierbench.model.transfer import transfer
from tierbench.model.answer import error_interval
from tierbench.model.labels import PREDICTED, ratio_label, scale_label
from tierbench.model.trust import widened
from tierbench.model.whatif import study_model, validate
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
# study -> (recorded results, {the corpus's job: the recorded workload standing for it, or the recorded jobs it is
# made of, each at a share of the data named by a parameter of the figure}, the recorded variant)
SOURCES = {
    "sandisk-dfsio": ("model-results", {}, ""),
    "sandisk-terasort": ("scale-model-results", {}, ""),
    "cloudera": ("cloudera-results", {}, "spark.shuffle_compress-false"),  # the study: intermediate compression off
    "c3o-sort": ("model-results", {"sort": "terasort"}, ""),              # Spark's TeraSort: a sort by key of lines
    # C3O's grep writes the lines that match: a scan of the input, then a write of p_occurrence of it (its runtimes
    # grow by the same seconds per 0.25 of p at every size and node count)
    "c3o-grep": ("cloudera-results", {"grep": (("dataread", None), ("datawrite", "p_occurrence"))},
                 "spark.shuffle_compress-false"),
}
PUBLISHED_TIE = 0.05  # a pair whose published runtimes differ by less is not ranked (the repeats do not order it)
PREDICTED_TIE = 0.01  # predicted runtimes this close are a tie: it ranks the pair neither way (counted wrong)
LOSO_COVERAGE = 0.80


@dataclass
class Source:
    """Recorded results, calibrated once: the model, its error estimate, and the stored study (for the scale model)."""
    path: str
    model: object
    error: float | None
    stored: object
    workloads: dict
    variant: str

    def job(self, workload: str) -> str | None:
        jobs = [p.job for p in self.model.profiles if p.workload == workload and p.job in self.model.overheads]
        preferred = [j for j in jobs if j.endswith(self.variant)] if self.variant else jobs
        return (preferred or jobs or [None])[0]


def load_source(path: str, workloads: dict, variant: str) -> Source:
    model, _, _ = study_model(path)
    return Source(path, model, validate(model)["hardware_median_abs_error"], ResultsDir(path).load(analysed=True),
                  workloads, variant)


def emr_replication(nodes: int) -> float:
    """EMR's dfs.replication: 1 below 4 core nodes, 2 below 10, 3 from 10 (EMR Release Guide, HDFS configuration)."""
    return 1.0 if nodes < 4 else 2.0 if nodes < 10 else 3.0


def target(fig: Figure, study: Study, config: str | None = None):
    """(hardware description, machine) a figure's configuration ran on."""
    hw = load_hardware(fig.hardware)
    if fig.nodes:
        hw = replace(hw.with_nodes(fig.nodes), write_copies=emr_replication(fig.nodes))
    layout = study.layouts.get(config or fig.config)
    if not layout:
        return hw, machine_of(hw)
    drives = catalog()
    pools = tuple(Pool(drives[p["drive"]], p["count"], {"data": p["data"], "intermediate": p["intermediate"]})
                  for p in layout)
    return hw, Machine(config or fig.config, hw.nodes, hw.cores, hw.network_mb_s, hw.write_copies, pools, hw.source,
                       hw.memory_bytes, hw.engine, hw.task_heap)


def runtime(src: Source, fig: Figure, study: Study, workload: str, config: str) -> dict | None:
    """One job on one configuration: seconds, interval, method and label, as `tierbench predict` gives them."""
    hw, machine = target(fig, study, config)
    t = transfer(src.stored, workload, hw, fig.size_bytes) if src.stored.study.spec.get("scale") else None
    if t:
        pooled = bool(t.pooled) and config != fig.baseline  # (the baseline's very figure: labelled as it is)
        base = next((f for f in study.figures if f.kind == "runtime" and (f.group, f.workload, f.config) ==
                     (fig.group, fig.workload, fig.baseline)), None) if pooled else None
        label = (runtime(src, base, study, workload, base.config)["label"] if base
                 else scale_label(workload, hw, [src.stored]))
        return {"seconds": t.seconds, "interval": widened(t.seconds, list(t.interval)), "method": "scale model", "label": label,
                "pooled_with_baseline": pooled}
    job = src.job(workload)
    if job is None:
        return None
    seconds = src.model.predict(job, machine, fig.size_bytes).seconds
    interval = widened(seconds, error_interval(seconds, src.error)) or [seconds, seconds]  # (as predict: a cluster is far)
    return {"seconds": seconds, "interval": interval, "method": "resource model", "label": "predicted"}


def job_runtime(src: Source, fig: Figure, study: Study, workload: str, config: str) -> dict | None:
    """A published job on one configuration: the recorded job standing for it, or the sum of the recorded jobs it is
    made of, each at its share of the data (a share of 0: that part does nothing)."""
    parts = src.workloads.get(workload, workload)
    if isinstance(parts, str):
        return runtime(src, fig, study, parts, config)
    got = []
    for recorded, share in parts:
        size = fig.size_bytes * (float(fig.params[share]) if share else 1.0)
        if size > 0:
            got.append(runtime(src, replace(fig, size_bytes=size), study, recorded, config))
    if not got or None in got:
        return None
    return {"seconds": sum(g["seconds"] for g in got), "interval": [sum(g["interval"][i] for g in got) for i in (0, 1)],
            "method": " + ".join(dict.fromkeys(g["method"] for g in got)),
            "label": next((g["label"] for g in got if g["label"] != PREDICTED), PREDICTED),
            "pooled_with_baseline": all(g.get("pooled_with_baseline") for g in got)}


def combined(a: str, b: str) -> str:
    kinds = {label.split(":")[0] for label in (a, b)}
    return next((k for k in ("structural", "fitted") if k in kinds), PREDICTED)


def ratio_of(src: Source, fig: Figure, study: Study, workload: str) -> dict | None:
    num, den = job_runtime(src, fig, study, workload, fig.config), job_runtime(src, fig, study, workload, fig.baseline)
    if not num or not den:
        return None
    return {"value": num["seconds"] / den["seconds"], "label": ratio_label(num["label"], num.get("pooled_with_baseline")),
            "interval": [num["interval"][0] / den["interval"][1], num["interval"][1] / den["interval"][0]]}


def predict_study(study: Study, src: Source) -> list[dict]:
    """Every figure of the study beside its prediction (None where the results have no such job)."""
    rows = []
    for fig in study.figures:
        row = {"figure": fig, "published": fig.value}
        if fig.kind == "runtime":
            p = job_runtime(src, fig, study, fig.workload, fig.config)
            row.update(p and {"predicted": p["seconds"], "interval": p["interval"], "label": p["label"],
                              "method": p["method"], "pooled_with_baseline": p.get("pooled_with_baseline")} or {})
        elif fig.kind in ("ratio", "best_ratio"):
            ratios = [r for w in (fig.workloads or (fig.workload,)) if (r := ratio_of(src, fig, study, w))]
            best = min(ratios, key=lambda r: r["value"]) if ratios else None
            row.update(best and {"predicted": best["value"], "interval": best["interval"], "label": best["label"],
                                 "method": "ratio"} or {})
        else:
            fast = job_runtime(src, fig, study, fig.workload, fig.config)
            slow = job_runtime(src, fig, study, fig.workload, fig.slower)
            tie = PREDICTED_TIE if fig.or_equal else -PREDICTED_TIE  # "no slower": a predicted tie is right
            row.update(fast and slow and {"right": fast["seconds"] < slow["seconds"] * (1 + tie),
                                          "label": combined(fast["label"], slow["label"]), "method": "order"} or {})
        rows.append(row)
    return rows


def derived_ratios(rows: list[dict]) -> list[dict]:
    """Each runtime over its group's baseline runtime, published and predicted (the interval from the runtimes')."""
    by = {(r["figure"].group, r["figure"].config): r for r in rows if r["figure"].kind == "runtime" and "predicted" in r}
    out = []
    for (group, config), r in by.items():
        base = by.get((group, r["figure"].baseline))
        if base is None or base is r:
            continue
        out.append({"published": r["published"] / base["published"], "predicted": r["predicted"] / base["predicted"],
                    "label": ratio_label(r["label"], r.get("pooled_with_baseline")),
                    "interval": [r["interval"][0] / base["interval"][1], r["interval"][1] / base["interval"][0]]})
    return out


def pairs(rows: list[dict]) -> tuple[int, int]:
    """(ranked right, pairs): runtimes of one group that are both predicted and whose published figures differ by
    more than PUBLISHED_TIE, and the study's published orders."""
    right = total = 0
    groups: dict = {}
    for r in rows:
        if r["figure"].kind == "runtime" and r.get("label") == "predicted":
            groups.setdefault(r["figure"].group, []).append(r)
    for rs in groups.values():
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                fast, slow = sorted((a, b), key=lambda r: r["published"])
                if slow["published"] <= fast["published"] * (1 + PUBLISHED_TIE):
                    continue
                total += 1
                right += fast["predicted"] < slow["predicted"] * (1 - PREDICTED_TIE)
    for r in rows:
        if r["figure"].kind == "order" and r.get("label") == "predicted":
            total += 1
            right += r["right"]
    return right, total


def error(pred: float, pub: float) -> float:
    return abs(pred / pub - 1)


def median_or_none(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def score(rows: list[dict]) -> dict:
    """A study's row: figures by label, then over predicted figures only: the ratios' and the runtimes' median
    error, the pairs ranked right, and the published figures inside the stated interval."""
    labels = [r.get("label", "not predicted").split(":")[0] for r in rows]  # (a fitted one says why after ":")
    ratios = [r for r in derived_ratios(rows) if r["label"] == "predicted"]
    ratios += [r for r in rows if r["figure"].kind in ("ratio", "best_ratio") and r.get("label") == "predicted"]
    runtimes = [r for r in rows if r["figure"].kind == "runtime" and r.get("label") == "predicted"]
    published = runtimes or [r for r in ratios if "figure" in r]  # a study of ratios alone: its ratios' intervals
    inside = [r["interval"][0] <= r["published"] <= r["interval"][1] for r in published]
    right, total = pairs(rows)
    return {"n": len(rows), "labels": {k: labels.count(k) for k in dict.fromkeys(labels)},
            "ratio_error": median_or_none([error(r["predicted"], r["published"]) for r in ratios]), "ratios": len(ratios),
            "abs_error": median_or_none([error(r["predicted"], r["published"]) for r in runtimes]),
            "runtimes": len(runtimes), "pairs": (right, total),
            "coverage": (sum(inside) / len(inside)) if inside else None, "covered_of": len(inside)}


def log_errors(rows: list[dict]) -> list[float]:
    return [math.log(r["published"] / r["predicted"]) for r in rows
            if r["figure"].kind == "runtime" and r.get("label") == "predicted"]


def weighted_quantile(values_by_study: list[list[float]], q: float) -> float:
    """The q-quantile of the values with each study weighing the same, whatever its number of figures."""
    pts = sorted((v, 1 / len(vs)) for vs in values_by_study for v in vs)
    total, acc = sum(w for _, w in pts), 0.0
    for v, w in pts:
        acc += w
        if acc >= q * total:
            return v
    return pts[-1][0]


def loso(held_out: Study, rows_by: dict, papers: dict) -> dict | None:
    """The time scale and the 80% interval fitted on the other papers' predicted runtimes, applied to the held-out
    study: its runtimes' median error and coverage after the fit. None when either side has no runtimes."""
    others = [log_errors(rows) for name, rows in rows_by.items() if papers[name] != held_out.paper]
    others = [e for e in others if e]
    mine = log_errors(rows_by[held_out.name])
    if not others or not mine:
        return None
    bias = statistics.median(statistics.median(e) for e in others)
    half = weighted_quantile([[abs(x - bias) for x in e] for e in others], LOSO_COVERAGE)
    residual = [x - bias for x in mine]
    return {"scale": math.exp(bias), "half_width": half, "abs_error": statistics.median(abs(math.expm1(-x)) for x in residual),
            "coverage": sum(abs(x) <= half for x in residual) / len(residual)}


def corpus_width(rows_by: dict, papers: dict, held_out: str | None = None) -> tuple[float, list[str], int] | None:
    """The half-width (in log) holding LOSO_COVERAGE of the predicted runtimes of every paper but `held_out`, each
    paper one vote, with the papers and the figures it comes from; None without any."""
    by_paper: dict[str, list[float]] = {}
    for name, rows in rows_by.items():
        if papers[name] != held_out:
            by_paper.setdefault(papers[name], []).extend(abs(x) for x in log_errors(rows))
    by_paper = {p: e for p, e in by_paper.items() if e}
    if not by_paper:
        return None
    return weighted_quantile(list(by_paper.values()), LOSO_COVERAGE), sorted(by_paper), sum(map(len, by_paper.values()))


def width_coverage(held_out: Study, rows_by: dict, papers: dict) -> float | None:
    """The share of the held-out study's predicted runtimes inside the corpus interval fitted on the other papers."""
    width, mine = corpus_width(rows_by, papers, held_out.paper), log_errors(rows_by[held_out.name])
    return sum(abs(x) <= width[0] for x in mine) / len(mine) if width and mine else None


def write_errors(rows_by: dict, papers: dict, sources: dict) -> Path:
    """model/corpus/errors.toml: the corpus's interval for predictions to other hardware (model/trust.py)."""
    width, used, n = corpus_width(rows_by, papers)
    path = Path(__file__).resolve().parent.parent / "src" / "tierbench" / "model" / "corpus" / "errors.toml"
    path.write_text(
        "# Written by bench/bench_validate.py --write-errors (model/trust.py reads it): the half-width, in log, that holds\n"
        f"# {LOSO_COVERAGE:.0%} of the corpus's predicted runtimes (each paper one vote): fitted on the whole corpus, once,\n"
        "# never per study; the bench's table shows its coverage on each paper left out of the fit.\n[far]\n"
        f"half_width_log = {width:.4f}  # x{math.exp(width):.3g} either way\ncoverage = {LOSO_COVERAGE}\n"
        f"papers = {json.dumps(used)}\nfigures = {n}\n"
        f"measured = \"bench/bench_validate.py --write-errors, {datetime.date.today()}, predicted from "
        f"{', '.join(sorted({_shown(p) for p in sources.values()}))}\"\n")
    return path


def _shown(path: str) -> str:
    """A source folder as the errors file names it: relative to the repo when inside it."""
    repo = Path(__file__).resolve().parent.parent
    return str(Path(path).resolve().relative_to(repo)) if Path(path).resolve().is_relative_to(repo) else path


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def print_table(corpus: list[Study], scores: dict, fits: dict) -> None:
    print("| study | figures | predicted | median ratio error | median abs. error | pairs ranked right | "
          "interval coverage | corpus 80% interval, LOSO coverage | LOSO scale | LOSO abs. error | LOSO 80% coverage |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in corpus:
        sc, f = scores[s.name], fits.get(s.name)
        right, total = sc["pairs"]
        scale = f"x{f['scale']:.2f}" if f else "-"
        print(f"| {s.name} | {sc['n']} | {sc['labels'].get('predicted', 0)} | {pct(sc['ratio_error'])} (of {sc['ratios']}) "
              f"| {pct(sc['abs_error'])} (of {sc['runtimes']}) | {right} of {total} | {pct(sc['coverage'])} "
              f"(of {sc['covered_of']}) | {pct(sc.get('width_coverage'))} | {scale} | {pct(f and f['abs_error'])} "
              f"| {pct(f and f['coverage'])} |")


def print_figures(rows_by: dict) -> None:
    for name, rows in rows_by.items():
        for r in rows:
            fig = r["figure"]
            what = f"{fig.workload} {fig.config}" + (f" {'<=' if fig.or_equal else '<'} {fig.slower}" if fig.kind == "order" else "")
            if fig.kind == "order":
                got = "right" if r.get("right") else "WRONG" if "right" in r else "not predicted"
            elif "predicted" in r:
                lo, hi = r["interval"]
                got = f"{r['published']:,.3g} -> {r['predicted']:,.3g} ({lo:,.3g}-{hi:,.3g}) {r['predicted'] / r['published'] - 1:+.0%}"
            else:
                got = "not predicted"
            print(f"  {name:17} {fig.kind:10} {what:40} {got:46} {r.get('label', '')} {r.get('method', '')}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="sources", metavar="STUDY=DIR", action="append", default=[],
                    help=f"recorded results to predict a study from (studies: {', '.join(SOURCES)})")
    ap.add_argument("--figures", action="store_true", help="print every figure beside its prediction")
    ap.add_argument("--write-errors", action="store_true",
                    help="write model/corpus/errors.toml, the interval predict states for other hardware")
    args = ap.parse_args()
    paths = {name: str(FIXTURES / d) for name, (d, _, _) in SOURCES.items()}
    for s in args.sources:
        name, _, path = s.partition("=")
        if name not in SOURCES or not path:
            ap.error(f"--from {s}: expected STUDY=DIR, STUDY one of {', '.join(SOURCES)}")
        paths[name] = path
    corpus, loaded, rows_by = studies(), {}, {}
    for study in corpus:
        _, workloads, variant = SOURCES[study.name]
        key = (paths[study.name], str(workloads), variant)
        loaded.setdefault(key, load_source(paths[study.name], workloads, variant))
        rows_by[study.name] = predict_study(study, loaded[key])
    papers = {s.name: s.paper for s in corpus}
    scores = {name: score(rows) for name, rows in rows_by.items()}
    fits = {s.name: loso(s, rows_by, papers) for s in corpus}
    for s in corpus:
        scores[s.name]["width_coverage"] = width_coverage(s, rows_by, papers)
    if args.write_errors:
        print(f"wrote {write_errors(rows_by, papers, paths)}")
    if args.figures:
        print_figures(rows_by)
    print_table(corpus, scores, fits)
    counts: dict = {}
    for sc in scores.values():
        for k, v in sc["labels"].items():
            counts[k] = counts.get(k, 0) + v
    print(f"\nfigures: {', '.join(f'{v} {k}' for k, v in counts.items())}; every error, pair and coverage above counts "
          "predicted figures only (fitted: the published run a constant was set on; structural: equal to another by "
          "construction)")
    print("refit per held-out study: nothing in the model (its constants are not fitted to this corpus); the LOSO "
          "columns fit one time scale and an 80% interval on the other papers' runtimes")
    for study in corpus:
        print(f"{study.name}: from {paths[study.name]}" + "".join(
            f"; {k} <- its {v if isinstance(v, str) else ' + '.join(w + (f' x {s}' if s else '') for w, s in v)}"
            for k, v in SOURCES[study.name][1].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
