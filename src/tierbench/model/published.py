"""The model against the published studies: from tierbench's own scaled runs and the SanDisk 2014 cluster's
hardware (shipped: clusters/sandisk-*.toml), predict the studies' HDD/SSD runtime ratios at their sizes and
set them beside the ratios the papers measured (analysis/published.toml, copied from the papers)."""

import tomllib
from importlib import resources

from .hardware import load_hardware
from .predict import machine_of

TESTDFSIO_BYTES = 512 * 2000 * (1 << 20)  # 512 files x 2000 MB (TestDFSIO's MB is 2^20 bytes)
TERA_BYTES = 10**12  # TeraGen 1 TB: 10^10 rows of 100 bytes

# (study section, workload, its column in the section's results, size, the two configurations compared)
COMPARISONS = (
    ("sandisk_testdfsio_2014", "dfsio-read", 0, TESTDFSIO_BYTES, ("all_hdd", "all_ssd")),
    ("sandisk_testdfsio_2014", "dfsio-write", 1, TESTDFSIO_BYTES, ("all_hdd", "all_ssd")),
    ("sandisk_terasort_2014", "teragen", 0, TERA_BYTES, ("all_hdd", "all_ssd")),
    ("sandisk_terasort_2014", "terasort", 1, TERA_BYTES, ("all_hdd", "all_ssd")),
    ("sandisk_terasort_2014", "teragen", 0, TERA_BYTES, ("all_hdd", "hdd_plus_ssd_intermediate")),
    ("sandisk_terasort_2014", "terasort", 1, TERA_BYTES, ("all_hdd", "hdd_plus_ssd_intermediate")),
)
HARDWARE = {"all_hdd": "sandisk-all-hdd", "all_ssd": "sandisk-all-ssd", "hdd_plus_ssd_intermediate": "sandisk-hybrid"}


def published() -> dict:
    return tomllib.loads(resources.files("tierbench.analysis").joinpath("published.toml").read_text())


def compare(model) -> list[dict]:
    """One row per comparison whose workload the model has: the published and the predicted runtime ratio."""
    pub = published()
    jobs = {}
    for p in model.profiles:
        if p.job in model.overheads:
            jobs.setdefault(p.workload, p.job)
    rows = []
    for section, workload, col, size, (slow, fast) in COMPARISONS:
        if workload not in jobs:
            continue
        res = pub[section]["results"]
        pred = {c: model.predict(jobs[workload], machine_of(load_hardware(HARDWARE[c])), size) for c in (slow, fast)}
        rows.append({"study": section, "workload": workload, "job": jobs[workload], "size_bytes": size,
                     "compared": f"{slow} / {fast}",
                     "published_s": [res[slow][col], res[fast][col]],
                     "published_ratio": res[slow][col] / res[fast][col],
                     "predicted_s": [pred[slow].seconds, pred[fast].seconds],
                     "predicted_ratio": pred[slow].seconds / pred[fast].seconds,
                     "bottlenecks": [max(pred[c].phases, key=lambda r: r["seconds"])["bottleneck"] for c in (slow, fast)]})
    return rows
