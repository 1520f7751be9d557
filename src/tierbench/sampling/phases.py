"""Split a run's samples into the job's phases and summarise IO per phase and device (as collectl did).

Phases come from the engine: Spark stages (from a listener in the job; each workload names its
stages), and for
TeraSort the tasks' own map / shuffle-fetch / sort-and-write intervals. Each
sample interval is given the phase that the tasks spent most of it in (the
finest level that covers it: task phases, else stages); the writeback sample
after the job is its own phase.
"""

WRITEBACK = "writeback after the job"
OUTSIDE = "outside any stage"


def phase_intervals(names: tuple[str, ...], job: dict) -> list[dict]:
    """[{phase, start_ms, end_ms, level}]: the engine's stages (level 0), named by the workload's `phases`
    in order, and, finer, the tasks' own phase intervals when the job reports them (level 1: e.g.
    TeraSort's shuffle fetch inside the reduce stage)."""
    out = []
    for i, s in enumerate(sorted(job.get("stages", []), key=lambda s: s["submitted_ms"])):
        name = names[i] if i < len(names) else f"stage {s['stage_id']}"
        out.append({"phase": name, "start_ms": s["submitted_ms"], "end_ms": s["completed_ms"], "level": 0})
    out += [{**p, "level": 1} for p in job.get("task_phases", [])]
    return out


SLICES = 10  # points per sample interval at which the phase is looked up


def label_samples(samples: dict, intervals: list[dict]) -> list[str]:
    """Each sample interval's phase: the one in force over most of it, where at each moment the finest level
    that covers the moment decides (a task's own phase, else its stage). (Deciding by the finest level over
    the whole interval gave a sample that ended a stage to the next stage's first task phase however little
    of it that phase covered: a map stage's last output, written as its tasks end, went to the shuffle.)"""
    levels = sorted({iv.get("level", 0) for iv in intervals}, reverse=True)  # finest first
    labels = []
    prev = samples.get("start_ms") or (samples["t_ms"][0] - samples["interval_s"] * 1000 if samples["t_ms"] else 0)
    for t, tag in zip(samples["t_ms"], samples["tags"]):
        if tag == "writeback":
            labels.append(WRITEBACK)
            continue
        votes: dict[str, int] = {}
        for k in range(SLICES):
            at = prev + (k + 0.5) * (t - prev) / SLICES
            for level in levels:
                here: dict[str, int] = {}  # phase -> intervals (tasks) in it at this moment
                for iv in intervals:
                    if iv.get("level", 0) == level and iv["start_ms"] <= at < iv["end_ms"]:
                        here[iv["phase"]] = here.get(iv["phase"], 0) + 1
                if here:
                    phase = max(here, key=here.get)
                    votes[phase] = votes.get(phase, 0) + 1
                    break
        labels.append(max(votes, key=votes.get) if votes else OUTSIDE)
        prev = t
    return labels


def io_profile(samples: dict, labels: list[str], roles: dict[str, list[str]]) -> list[dict]:
    """Per phase and device: MB read/written, IOs, merges, average IO size, MB/s, utilisation; CPU per phase.
    `roles`: device -> the storage roles it holds ("data", "intermediate")."""
    interval_ms = samples["interval_s"] * 1000
    times = samples["t_ms"]
    net = samples.get("net")
    rows = []
    for phase in dict.fromkeys(labels):
        idx = [i for i, l in enumerate(labels) if l == phase]
        dur_s = 0.0
        for i in idx:
            prev = times[i - 1] if i > 0 else (samples.get("start_ms") or times[i] - interval_ms)
            dur_s += max(times[i] - prev, 1) / 1000
        cpu_busy = sum(samples["cpu"]["user"][i] + samples["cpu"]["system"][i] + samples["cpu"]["other"][i] for i in idx) / len(idx)
        iowait = sum(samples["cpu"]["iowait"][i] for i in idx) / len(idx)
        for dev, cols in samples["devices"].items():
            g = lambda k: sum(cols[k][i] for i in idx)
            rd, wr, rios, wios = g("rd_bytes"), g("wr_bytes"), g("rd_ios"), g("wr_ios")
            rows.append({
                "phase": phase, "device": dev, "roles": roles.get(dev, []), "seconds": round(dur_s, 3),
                "read_mb": rd / 2**20, "write_mb": wr / 2**20, "read_ios": rios, "write_ios": wios,
                "read_merges": g("rd_merges"), "write_merges": g("wr_merges"),
                "avg_read_kb": rd / rios / 1024 if rios else 0.0, "avg_write_kb": wr / wios / 1024 if wios else 0.0,
                "read_mb_s": rd / 2**20 / dur_s if dur_s else 0.0, "write_mb_s": wr / 2**20 / dur_s if dur_s else 0.0,
                "util_pct": min(100.0, 100 * g("io_ms") / 1000 / dur_s) if dur_s else 0.0,
                "cpu_busy_pct": round(cpu_busy, 1), "cpu_iowait_pct": round(iowait, 1),
                # the machine's network in the phase (all interfaces, loopback included: a one-box cluster's shuffle)
                "net_rx_mb": sum(net["rx_bytes"][i] for i in idx) / 2**20 if net else 0.0,
                "net_tx_mb": sum(net["tx_bytes"][i] for i in idx) / 2**20 if net else 0.0,
            })
    return rows


def run_character(profile: list[dict], cores: int) -> str:
    """'CPU-bound', 'IO-bound (device)' or 'mixed', from the job's phases (not the writeback)."""
    job = [r for r in profile if r["phase"] != WRITEBACK]
    if not job:
        return "unknown"
    secs = {}
    for r in job:
        secs[r["phase"]] = r["seconds"]
    total = sum(secs.values()) or 1
    cpu = sum(r["cpu_busy_pct"] * r["seconds"] for r in {r["phase"]: r for r in job}.values()) / total
    util = {}
    for r in job:
        util[r["device"]] = util.get(r["device"], 0) + r["util_pct"] * r["seconds"] / total
    dev, top = max(util.items(), key=lambda kv: kv[1]) if util else (None, 0)
    if top >= 80:
        return f"IO-bound ({dev} {top:.0f}% busy)"
    if cpu >= 85 and top < 60:
        return f"CPU-bound ({cpu:.0f}% CPU, busiest device {top:.0f}%)"
    return f"mixed ({cpu:.0f}% CPU, busiest device {dev} {top:.0f}%)"
