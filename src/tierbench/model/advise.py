"""`tierbench advise`: which tier for the data and for the intermediate data, how many directories to split a
fast intermediate device into, how large an SSD the intermediate data needs, and which knob helped -- each piece
of advice with the numbers behind it, from the calibrated model and the measured runs.

The tiers are compared on one cluster shape (the --hardware description, default the SanDisk 2014 cluster with
2 HDDs per node): all its drives HDDs, HDDs with one SSD per node for intermediate data, and all SSDs, in the
cluster's own kinds of drive (tier_drives); each tier's time is the one answer model/answer.py gives.
"""

import statistics
from dataclasses import dataclass, replace

from ..analysis.composites import intermediate_share
from ..analysis.stats import runs_for_analysis
from ..units import format_size
from .hardware import DriveSet, Hardware, catalog, load_hardware
from .answer import answer

SSD_DATA_GAIN = 0.25          # all-SSD gains this much: the job's data belongs on SSD
SSD_INTERMEDIATE_GAIN = 0.10  # an SSD for intermediate data gains this much: recommend it
HEADROOM = 1.5  # intermediate space: what one job writes per node, with room for a second job's and the FS's slack


@dataclass
class Advice:
    topic: str
    advice: str
    numbers: list[str]

    def to_dict(self) -> dict:
        return {"topic": self.topic, "advice": self.advice, "numbers": self.numbers}


def _secs(x: float) -> str:
    return f"{x:,.0f} s" if x >= 10 else f"{x:.2f} s"  # a scaled-down study's jobs take seconds


def tier_drives(hw: Hardware) -> tuple[str, str]:
    """The HDD and the SSD the tiers compare: the cluster's own where it has one (a rotating drive: one with its own
    seek figures in the catalog), else today's typical ones -- so the SanDisk cluster's tiers are its three published
    layouts, the same questions `predict --hardware sandisk-*` answers."""
    own = [hw.data.drive] + ([] if hw.intermediate_on_data else [hw.intermediate.drive])
    hdd = next((d.name for d in own if d.write_seek_kib is not None), "hdd-7200")
    ssd = next((d.name for d in own if d.write_seek_kib is None and d.name in catalog()), "sata-ssd")
    return hdd, ssd


def tiers(hw: Hardware, hdd: str | None = None, ssd: str | None = None) -> dict[str, Hardware]:
    """The cluster's shape with all-HDD, HDD + one SSD per node for intermediate data, and all-SSD drives."""
    own_hdd, own_ssd = tier_drives(hw)
    h, s = catalog()[hdd or own_hdd], catalog()[ssd or own_ssd]
    count = hw.data.count
    return {"all-HDD": replace(hw, name="all-HDD", data=DriveSet(h, count), intermediate=DriveSet(h, count), intermediate_on_data=True),
            "HDD + SSD intermediate": replace(hw, name="HDD + SSD intermediate", data=DriveSet(h, count),
                                              intermediate=DriveSet(s, 1), intermediate_on_data=False),
            "all-SSD": replace(hw, name="all-SSD", data=DriveSet(s, count), intermediate=DriveSet(s, count), intermediate_on_data=True)}


def split_dirs(fast_mb_s: float, slow_mb_s: float, slow_drives: int) -> tuple[int, float]:
    """Directories to give one fast device beside `slow_drives` slow ones so that round-robin placement (Spark's
    and Hadoop's over local dirs) loads each by its speed: the fast share s = fast / (fast + n x slow), and k dirs
    of the fast device among k + n give it k / (k + n) = s."""
    share = fast_mb_s / (fast_mb_s + slow_drives * slow_mb_s)
    k = max(1, round(share * slow_drives / (1 - share)))
    return k, share


def advise(model, hardware: Hardware | None = None, size_bytes: float | None = None, studies: list = (),
           error: float | None = None) -> list[Advice]:
    """The advice for `model`'s jobs on `hardware`'s shape; each tier's time is the answer every route gives
    (model/answer.py: the scale model where `studies` model that tier at that size)."""
    hw = hardware or load_hardware("sandisk-all-hdd")
    out: list[Advice] = []
    shapes = tiers(hw)
    jobs = [j for j in model.labels() if j in model.overheads]
    times = {(j, t): answer(model, list(studies), j, h, size_bytes, error) for j in jobs for t, h in shapes.items()}
    size = lambda j: times[(j, "all-HDD")].size_bytes
    # 1. the data's tier and the intermediate data's tier
    gain = lambda j, t: 1 - times[(j, t)].seconds / times[(j, "all-HDD")].seconds
    data_nums = [f"{j} at {format_size(size(j))}: all-SSD {gain(j, 'all-SSD'):.0%} faster than all-HDD "
                 f"({_secs(times[(j, 'all-SSD')].seconds)} vs {_secs(times[(j, 'all-HDD')].seconds)})" for j in jobs]
    inter_nums = [f"{j}: HDD + SSD intermediate {gain(j, 'HDD + SSD intermediate'):.0%} faster than all-HDD, "
                  f"all-SSD {gain(j, 'all-SSD'):.0%}" for j in jobs]
    helped = [j for j in jobs if gain(j, "HDD + SSD intermediate") >= SSD_INTERMEDIATE_GAIN]
    big = [j for j in jobs if gain(j, "all-SSD") >= SSD_DATA_GAIN]
    out.append(Advice("data tier",
                      (f"SSDs for the data pay off for {', '.join(big)}" if big else
                       "the data's tier hardly matters for these jobs: they are bound by CPU or by the intermediate data")
                      + f" (on {hw.nodes} nodes x {hw.data.count} drives; predicted: "
                      f"{', '.join(sorted({a.method for a in times.values()}))})", data_nums))
    out.append(Advice("intermediate tier",
                      (f"one SSD per node for intermediate data speeds up {', '.join(helped)}: the jobs that shuffle"
                       if helped else "an SSD for intermediate data alone gains under 10% on every job here")
                      + "; the rest follow their data's tier", inter_nums))
    # 2. how many directories to split the fast intermediate device into
    h, s = (catalog()[d] for d in tier_drives(hw))
    k, share = split_dirs(s.write_mb_s, h.write_mb_s, hw.data.count)
    out.append(Advice("split the SSD",
                      f"when the HDDs keep a share of the shuffle (their dirs listed too), list the SSD as {k} "
                      f"directories beside the {hw.data.count} HDDs' so round-robin gives it {k}/{k + hw.data.count} "
                      "of the intermediate data (the Cloudera 2014 study split one SSD into 10 local dirs beside 6 HDDs)",
                      [f"SSD {s.write_mb_s:,.0f} MB/s vs {hw.data.count} x HDD {h.write_mb_s:,.0f} MB/s: the SSD's "
                       f"share by speed is {share:.0%}"]))
    # 3. the SSD's size for intermediate data, from the share of the data set the report shows
    runs = [r for s in studies for r in runs_for_analysis(list(s.runs))]
    inter = {j: _intermediate_bytes(model, runs, j, size(j)) for j in jobs}
    top = max(inter, key=inter.get) if inter else None
    if top and inter[top] > 0:
        per_node = inter[top] / hw.nodes * HEADROOM
        out.append(Advice("intermediate SSD size",
                          f"at least {format_size(per_node)} per node for intermediate data ({top} at "
                          f"{format_size(size(top))} writes the most: {format_size(inter[top])} in all, x{HEADROOM:g} headroom)",
                          [f"{j}: {format_size(b)} of intermediate data at {format_size(size(j))} "
                           f"({b / size(j):.0%} of the data)" for j, b in inter.items() if b > 0]))
    # 4. knobs the study swept: what each value did, measured
    out += _knob_advice(model)
    return out


def _intermediate_bytes(model, runs: list, job: str, size_bytes: float) -> float:
    """What `job` at size_bytes writes as intermediate data on all nodes: the share of its data set its runs wrote
    (Spark's shuffle and spill metrics, else the workload's count: the report's Intermediate data figure), at that
    size; where the runs carry neither, the bytes its phases wrote to the intermediate devices, scaled."""
    share = intermediate_share(runs, job)
    if share:
        return share * size_bytes
    return statistics.median(sum(ph.bytes["intermediate.write"] for ph in p.phases) * (size_bytes / p.size_bytes)
                             for p in model.base_profiles(job))


def _knob_advice(model) -> list[Advice]:
    """For each workload run under more than one engine variant or label (a sweep), per configuration: the
    fastest against the slowest, measured, with Welch's test (analysis/stats.compare) saying whether it is noise."""
    from ..analysis.stats import compare

    groups: dict[tuple[str, str], dict[str, list[float]]] = {}
    for p in model.profiles:
        groups.setdefault((p.workload, p.config), {}).setdefault(p.job, []).append(p.wall_s)
    swept = {k: v for k, v in sorted(groups.items()) if len(v) >= 2}
    alpha = 0.05 / max(1, len(swept))  # Bonferroni: with 40 sweeps, two would pass p < 0.05 by chance alone
    out, noise = [], []
    for (workload, config), by_job in swept.items():
        med = {j: statistics.median(v) for j, v in by_job.items()}
        best, worst = min(med, key=med.get), max(med, key=med.get)
        c = compare(by_job[worst], by_job[best], best, workload, worst)
        if c.p_value is not None and c.p_value < alpha:
            out.append(Advice(f"knob: {workload} on {config}", f"{best}: {c.verdict}; below {alpha:.2g}, the "
                              f"threshold for {len(swept)} sweeps (Bonferroni)",
                              [f"{j}: {m:.2f} s (median of {len(by_job[j])})" for j, m in sorted(med.items(), key=lambda kv: kv[1])]))
        else:
            p = f"Welch p={c.p_value:.2f}" if c.p_value is not None else "too few repeats"
            noise.append(f"{workload} on {config}: {best} {1 - c.ratio:.0%} faster than {worst}, {p}")
    if noise:
        out.append(Advice("knobs", f"these sweeps made no difference beyond noise (Welch p below {alpha:.2g} needed: "
                                   f"0.05 over {len(swept)} sweeps): keep the defaults or repeat more", noise))
    return out


def cloud_advice(ranked: dict) -> list[Advice]:
    """`advise --cloud`: per job, which instance x storage x node count to pick (the cheapest within 10% of the
    fastest runtime), and which kind of storage -- local NVMe, a network volume, the object store -- is cheapest per
    job at its best, each with its runtime, $/job and bottleneck (model/cloud_rank.py ranked them)."""
    pm = lambda r: f" (${r['usd_range'][0]:.3g}-${r['usd_range'][1]:.3g})" if "usd_range" in r else ""
    pick = lambda r: f"{r['instance']} + {r['storage']} x {r['nodes']} nodes ({r['cloud']})"
    figures = lambda r: f"{_secs(r['seconds'])}, ${r['usd_per_job']:.3g} per job{pm(r)}, bottleneck {r['bottleneck']}"
    say = lambda r: f"{pick(r)}: {figures(r)}"
    out = []
    for job in dict.fromkeys(r["job"] for r in ranked["rows"]):
        rows = [r for r in ranked["rows"] if r["job"] == job]
        best = next(r for r in rows if r["best"])
        fastest = next(r for r in rows if r["fastest"])
        by_kind = {}
        for r in rows:  # cheapest first: the first of each kind is its cheapest
            by_kind.setdefault(r["kind"], r)
        kinds = sorted(by_kind.values(), key=lambda r: r["usd_per_job"])
        numbers = [f"fastest: {say(fastest)}"] + [f"cheapest on {r['kind']}: {say(r)}" for r in kinds]
        numbers.append(f"intervals: {ranked.get('margin_from')}")
        if ranked["requests_from"].get(job) == "estimated":
            numbers.append("object-store requests estimated from the bytes moved and S3A's default split and part "
                           "sizes: the runs recorded no S3A statistics")
        out.append(Advice(f"cloud: {job}", f"at {format_size(best['size_bytes'])}, pick {pick(best)}, the cheapest "
                          f"within {ranked['within']:.0%} of the fastest runtime ({figures(best)}); "
                          f"{kinds[0]['kind']} is the cheapest storage per job", numbers))
    return out
