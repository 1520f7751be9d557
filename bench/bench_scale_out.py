"""Scale-out check of the what-if model: predicted vs measured runtime for 1, 2 and 3 loopback Workers.

For each N in --workers: `tierbench services up spark --workers N` (the embedded standalone cluster, Worker i
on 127.0.0.(i+1), 1 core and 1 GB each: the service's defaults), the same small study on it (TeraGen +
TeraSort of --size, --tasks tasks so that 1, 2 and 3 Workers get whole waves, --repeats repeats, durable, on
one emulated --emulate device holding data and shuffle, so the model knows the measured drive), then
`services down spark`. From the 1-Worker study alone, `tierbench predict W1 --hardware HW.toml --nodes N`
predicts the N-Worker runtimes; each is printed beside the N-Worker study's measured median, with the error.

A loopback Worker is not a node. All Workers share this machine's cores, its one emulated drive (one
throttle budget per device, whoever writes) and its page cache. So every N is predicted on two hardware
descriptions, both written from what the 1-Worker study measured (the Worker's cores and memory from the
service, the drive as the emulation's throttle holds it, this machine's RAM):
  as nodes  N nodes, each what one Worker is: 1 core, the whole drive, the machine's RAM. What N real
            nodes of that shape would do; the model's `--nodes N` as asked.
  shared    what N Workers here really have: min(N, cores of this machine) nodes of 1 core (3 Workers on 2
            cores have 2 cores' worth of CPU), the drive's MB/s and IOPS and the RAM split among them.
Neither is tuned to the measurement. The model calibrates on the measured machine as the run's record
describes it (this machine's cores, here 2, though the one Worker ran its tasks on 1): the second table
predicts the same descriptions from a model whose measured machine is given the Worker's cores instead
(through the model's API, nothing changed in it), to tell that calibration apart from the scale-out rules.
Beside each measured median: the cores busy during the runs (the machine's CPU core-seconds over the wall time,
what the model's profile counts as the job's CPU demand): anything else running on the machine shows there.

    flock /tmp/tierbench-e2e.lock .venv/bin/python bench/bench_scale_out.py [--workers 1 2 3] [--size 256MB]
        [--tasks 12] [--repeats 3] [--emulate sata-ssd] [--out /tmp/tierbench-bench-scale-out]
    .venv/bin/python bench/bench_scale_out.py --from /tmp/tierbench-bench-scale-out   # print the tables again

Needs root (the emulated device) and starts JVMs: run it under the e2e lock. Each N takes 2-4 minutes at 256 MB.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from tierbench.model.hardware import load_hardware
from tierbench.model.measured import emulated_drive, load
from tierbench.model.predict import Model, machine_of
from tierbench.store import ResultsDir

TIERBENCH = [sys.executable, "-m", "tierbench"]
JOBS = ("teragen", "terasort")


def _tierbench(*args: str) -> str:
    out = subprocess.run([*TIERBENCH, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"tierbench {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return out.stdout


def _spec(master: str, n: int, args) -> str:
    """The study every N runs: only the master differs (its name keeps the results of each N apart)."""
    return f"""name = "scale-out-{n}-workers"
repeats = {args.repeats}
[engine]
kind = "spark"
master = "{master}"
executor_memory = "768m"   # within a Worker's 1 GB

[storage.ssd]
description = "one emulated {args.emulate} for data and shuffle, shared by every Worker"
data = {{ emulate = "{args.emulate}", size = "{args.device_size}" }}

[[workloads]]
name = "teragen"
size = "{args.size}"
tasks = {args.tasks}

[[workloads]]
name = "terasort"
split_size = "{args.split_size}"   # one split per TeraGen file: {args.tasks} map tasks
partitions = {args.tasks}
"""


def run_study(n: int, out: Path, args) -> None:
    """N Workers up, the study on them, the Workers down (also when the study fails)."""
    cluster = out / f"cluster-{n}"
    print(f"load average before {n} Worker(s): {os.getloadavg()[0]:.2f} (what else runs on the machine shows in "
          "its runs' cores busy)", flush=True)
    up = _tierbench("services", "up", "spark", "--workers", str(n), "--dir", str(cluster))
    master = next(w for w in up.split() if w.startswith("spark://")).rstrip(",")
    print(f"{n} Worker(s): {master}", flush=True)
    try:
        spec = out / f"scale-out-{n}.toml"
        spec.write_text(_spec(master, n, args))
        subprocess.run([*TIERBENCH, "run", str(spec), "--out", str(out / f"w{n}")], check=True)
    finally:
        _tierbench("services", "down", "spark", "--dir", str(cluster))


def measured_medians(results: Path) -> dict[str, tuple[float, float]]:
    """job -> (median runtime, median cores busy: the machine's CPU core-seconds over the run's wall time, as the
    model's profile counts them -- everything on the machine, not only the executors' tasks)."""
    profiles, _, _ = load([results])
    return {job: (statistics.median(p.wall_s for p in ps), statistics.median(sum(ph.cpu_s for ph in p.phases) / p.wall_s
                                                                                for p in ps))
            for job in JOBS if (ps := [p for p in profiles if p.job == job])}


def worker_shape(out: Path) -> dict:
    """What one Worker of the 1-Worker study was: its cores and memory (the service's), the drive (the emulated
    device as its throttle holds it, as the model reads it), this machine's cores and RAM."""
    state = json.loads((out / "cluster-1" / "service.json").read_text())
    stored = ResultsDir(out / "w1").load()
    (dev,) = (stored.study.emulated or {}).values()
    machine = next(r.machine for r in stored.runs if r.status == "ok")
    return {"cores": int(state["cores"]), "worker_memory": state["memory"], "drive": emulated_drive(dev),
            "host_cores": int(machine["cpu_cores"]), "host_memory": int(machine["memory_bytes"])}


def hardware_toml(name: str, shape: dict, nodes: int, split: int) -> str:
    """N nodes of one Worker's shape, the drive and RAM divided by `split` (1: each node has them whole)."""
    d = shape["drive"]
    return f"""name = "{name}"
source = "bench_scale_out.py: one loopback Worker of the 1-Worker study (Worker memory {shape['worker_memory']}; the page cache is the machine's)"
nodes = {nodes}
cores = {shape['cores']}
memory = {shape['host_memory'] // split}
[data]
read_mb_s = {d.read_mb_s / split:.4f}
write_mb_s = {d.write_mb_s / split:.4f}
read_iops = {d.read_iops / split:.4f}
write_iops = {d.write_iops / split:.4f}
"""


def descriptions(shape: dict, n: int, tmp: Path) -> dict[str, Path]:
    """The two hardware files for N Workers: as N nodes of one Worker each, and the machine's resources shared."""
    shared = max(1, min(n, shape["host_cores"] // shape["cores"]))
    files = {"as nodes": tmp / "one-worker.toml", "shared": tmp / f"shared-{n}.toml"}
    files["as nodes"].write_text(hardware_toml("one-worker", shape, 1, 1))
    files["shared"].write_text(hardware_toml(f"{n}-workers-sharing-{shape['host_cores']}-cores", shape, shared, shared))
    return files


def predicted_cli(w1: Path, hw: Path, nodes: int | None) -> dict[str, float]:
    """`tierbench predict W1 --hardware HW [--nodes N] --json`: job -> seconds."""
    extra = ["--nodes", str(nodes)] if nodes else []
    rows = json.loads(_tierbench("predict", str(w1), "--hardware", str(hw), *extra, "--json"))["predictions"]
    return {r["job"]: r["seconds"] for r in rows}


def predicted_as_worker(w1: Path, hw: Path, nodes: int | None, worker_cores: int) -> dict[str, float]:
    """The same prediction from a model whose measured machine has the Worker's cores (not the machine's)."""
    profiles, machines, _ = load([w1])
    model = Model(profiles, {c: replace(m, cores=worker_cores) for c, m in machines.items()}).calibrate()
    h = load_hardware(hw)
    m = machine_of(h.with_nodes(nodes) if nodes else h)
    return {job: model.predict(job, m).seconds for job in model.labels() if job in model.overheads}


def _table(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    print(f"{'Workers':>7} {'job':9} {'measured s':>10} {'cores busy':>10} {'as nodes s':>10} {'error':>7} "
          f"{'shared s':>9} {'error':>7}")
    for n, job, (measured, busy), as_nodes, shared in rows:
        print(f"{n:>7} {job:9} {measured:10.2f} {busy:10.2f} {as_nodes:10.2f} {as_nodes / measured - 1:+7.0%} "
              f"{shared:9.2f} {shared / measured - 1:+7.0%}")
    rows = [(n, job, measured, *ps) for n, job, (measured, _), *ps in rows]
    errors = [abs(p / m - 1) for _, _, m, *ps in rows for p in ps]
    by = {k: statistics.median(abs(r[i] / r[2] - 1) for r in rows if r[0] > 1) for k, i in (("as nodes", 3), ("shared", 4))
          if any(r[0] > 1 for r in rows)}
    print("median |error| over N > 1: " + ", ".join(f"{k} {v:.0%}" for k, v in by.items()) +
          f"; largest of all {max(errors):.0%}")


def report(out: Path, workers: list[int]) -> None:
    shape = worker_shape(out)
    d = shape["drive"]
    print(f"\none Worker: {shape['cores']} core(s), {shape['worker_memory']} (the machine: {shape['host_cores']} cores, "
          f"{shape['host_memory'] / 2**30:.1f} GiB); drive {d.name}: {d.read_mb_s:.1f}/{d.write_mb_s:.1f} MB/s "
          f"read/write, {d.read_iops:.0f}/{d.write_iops:.0f} IOPS")
    tmp = out / "hardware"
    tmp.mkdir(exist_ok=True)
    w1 = out / "w1"
    cli, api = [], []
    for n in workers:
        measured = measured_medians(out / f"w{n}")
        files = descriptions(shape, n, tmp)
        a, b = predicted_cli(w1, files["as nodes"], n), predicted_cli(w1, files["shared"], None)
        a2 = predicted_as_worker(w1, files["as nodes"], n, shape["cores"])
        b2 = predicted_as_worker(w1, files["shared"], None, shape["cores"])
        cli += [(n, job, measured[job], a[job], b[job]) for job in JOBS if job in measured]
        api += [(n, job, measured[job], a2[job], b2[job]) for job in JOBS if job in measured]
    _table("tierbench predict W1 --hardware HW --nodes N (measured: the N-Worker study's median)", cli)
    _table("the same, the measured machine described as one Worker (its cores) in the calibration", api)
    print(f"\nhardware descriptions: {tmp}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3], help="the N to run (1 must be among them)")
    ap.add_argument("--size", default="256MB", help="TeraGen's size (default: 256MB)")
    ap.add_argument("--tasks", type=int, default=12, help="TeraGen's tasks and TeraSort's partitions (default: 12)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--emulate", default="sata-ssd", help="the emulated device's profile (default: sata-ssd)")
    ap.add_argument("--device-size", default="3GB")
    ap.add_argument("--out", default="/tmp/tierbench-bench-scale-out")
    ap.add_argument("--from", dest="done", metavar="DIR", help="print the tables of a folder run before; run nothing")
    args = ap.parse_args()
    if 1 not in args.workers:
        raise SystemExit("--workers: 1 must be among them (the predictions start from the 1-Worker study)")
    from tierbench.bounds import size_of

    args.split_size = f"{-(-size_of(args.size) // args.tasks) // 2**20 + 1}MB"  # a TeraGen file fits one split
    out = Path(args.done or args.out)
    if not args.done:
        out.mkdir(parents=True, exist_ok=True)
        for n in sorted(args.workers):
            run_study(n, out, args)
    workers = sorted(int(p.name[1:]) for p in out.glob("w[0-9]*") if p.is_dir()) if args.done else sorted(args.workers)
    report(out, workers)
    return 0


if __name__ == "__main__":
    from common import run_main  # (here: the tests import this module's helpers without its side effects)

    sys.exit(run_main(main))
