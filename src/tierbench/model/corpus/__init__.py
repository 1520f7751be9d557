"""The validation corpus: published results the model is checked against (bench/bench_validate.py), each figure with
its source, each study with its citation. Shipped in the package (nothing is read from outside it):

  sandisk.toml    the SanDisk 2014 TestDFSIO and TeraSort runtimes (clusters/sandisk-*.toml)
  cloudera.toml   the Cloudera 2014 SSD study's findings, read as ratios and orders (its layouts as pools of drives)
  c3o-sort.tsv    the C3O Spark sort and grep runs on EMR, 2-12 workers of c4/m4/r4.2xlarge (clusters/c3o-*.toml),
  c3o-grep.tsv    the median of each configuration's 5 runs

A figure is a runtime (seconds), a ratio of two configurations' runtimes (`ratio`, to the study's baseline), the best
such ratio over several jobs (`best_ratio`), or an order (`order`: `config` ran faster than `slower`, or no slower
when `or_equal`). Figures of one
`group` ran the same job on the same data: only they are compared with each other.
"""

import csv
import tomllib
from dataclasses import dataclass, field
from importlib import resources

C3O_JOBS = ("sort", "grep")
C3O_PARAMS = ("data_size_MB", "line_length", "lines", "p_occurrence")  # what makes two runs the same job on the same data
C3O_BASE_NODES = 2  # a C3O ratio is to the same instance type's 2-worker run of the same job and data


@dataclass(frozen=True)
class Figure:
    study: str
    kind: str                  # "runtime", "ratio", "best_ratio" or "order"
    workload: str              # the job ("best" for best_ratio: the best of `workloads`)
    config: str
    hardware: str              # a shipped hardware description (model/clusters/)
    size_bytes: float
    value: float | None        # seconds (runtime) or the ratio; None for an order
    source: str
    group: tuple = ()          # figures of one group ran the same job on the same data
    baseline: str = ""         # the configuration a ratio is taken to, within the group
    nodes: int | None = None   # workers, when not the description's own
    slower: str = ""           # order: the configuration that ran slower than `config`
    or_equal: bool = False     # order: `config` ran no slower than `slower` (a finding of "no gain")
    workloads: tuple = ()      # best_ratio: the jobs whose best ratio the figure is
    spread: tuple = ()         # (fastest, slowest) of the published repeats, when the source gives them
    params: dict = field(default_factory=dict)  # the job's parameters, as the source names them (C3O's p_occurrence)


@dataclass(frozen=True)
class Study:
    name: str
    paper: str                 # the publication: leave-one-study-out leaves out all of a paper's studies
    citation: str
    figures: tuple
    layouts: dict = field(default_factory=dict)  # config -> pools of drives per node (cloudera.toml)


def _text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def _toml_studies(name: str) -> list[Study]:
    out = []
    for s in tomllib.loads(_text(name))["study"]:
        figures = []
        for f in s["figure"]:
            kind = f.get("kind", "runtime")
            workload = f.get("workload", "best")
            figures.append(Figure(
                s["name"], kind, workload, f.get("config", f.get("faster", "")), f.get("hardware", s.get("hardware", "")),
                float(f.get("size_bytes", s.get("size_bytes", 0))), f.get("seconds", f.get("ratio")), f["source"],
                (workload,), s["baseline"], slower=f.get("slower", ""), or_equal=f.get("or_equal", False), workloads=tuple(f.get("workloads", ()))))
        out.append(Study(s["name"], s["paper"], s["citation"], tuple(figures), s.get("layouts", {})))
    return out


def _c3o_study(job: str) -> Study:
    lines = _text(f"c3o-{job}.tsv").splitlines()
    citation = " ".join(line.lstrip("# ") for line in lines if line.startswith("#"))
    rows = list(csv.DictReader([line for line in lines if not line.startswith("#")], delimiter="\t"))
    figures = []
    for r in rows:
        family = r["machine_type"].split(".")[0]
        group = (job,) + tuple(r.get(p, "") for p in C3O_PARAMS)
        figures.append(Figure(
            f"c3o-{job}", "runtime", job, f"{r['machine_type']} x{r['instance_count']}", f"c3o-{family}-2xlarge",
            float(r["data_size_MB"]) * (1 << 20), float(r["median_s"]),
            f"C3O {job}: the median of {r['runs']} runs' gross_runtime (c3o-{job}.tsv; Will et al., IEEE Big Data 2020)",
            group, f"{r['machine_type']} x{C3O_BASE_NODES}", nodes=int(r["instance_count"]),
            spread=(float(r["min_s"]), float(r["max_s"])), params={p: r[p] for p in C3O_PARAMS if p in r}))
    return Study(f"c3o-{job}", "c3o-2020", citation, tuple(figures))


def studies() -> list[Study]:
    """Every study of the corpus, in a fixed order."""
    return _toml_studies("sandisk.toml") + _toml_studies("cloudera.toml") + [_c3o_study(j) for j in C3O_JOBS]
