"""Device ceilings with fio: what each storage directory's device can do, to judge runs against (a study's
directories are probed by study/probe.py).

Per distinct device behind the spec's directories: sequential write and read
(1 MiB blocks, O_DIRECT, queue depth 8) and random reads at a shuffle-fetch
size (64 KiB). fio's files live under tierbench's namespaced root and are
deleted afterwards. Where O_DIRECT is refused (tmpfs), it retries buffered and
says so.
"""

import json
import shutil
from pathlib import Path

from .. import processes
from ..errors import UserError
from ..units import format_size
from .devices import device_of

TESTS = (  # name, fio rw, block size, extra
    ("seq_write", "write", "1M", ["--end_fsync=1"]),
    ("seq_read", "read", "1M", []),
    ("rand_read_64k", "randread", "64k", ["--time_based"]),
)


def fio_path() -> str:
    found = shutil.which("fio")
    if not found:
        raise UserError("fio is not installed: install it (Debian: apt-get install fio); ./setup.sh does this when root")
    return found


def _fio(workdir: Path, rw: str, bs: str, size: int, runtime_s: int, extra: list[str], direct: bool) -> dict:
    # (fio splits --directory at ':' into several directories: it runs in the folder instead, which any path can name)
    cmd = [fio_path(), "--name=tierbench-probe", "--directory=.", f"--rw={rw}", f"--bs={bs}", f"--size={size}",
           "--ioengine=libaio", "--iodepth=8", "--numjobs=1", f"--direct={1 if direct else 0}", f"--runtime={runtime_s}",
           "--output-format=json", *extra]
    out = processes.run(cmd, capture_output=True, text=True, timeout=600, cwd=workdir)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"fio exited {out.returncode}")
    job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0]
    side = job["read"] if rw in ("read", "randread") else job["write"]
    pct = side.get("clat_ns", {}).get("percentile", {})
    return {"mb_s": side["bw_bytes"] / 2**20, "iops": side["iops"], "block": bs,
            "p50_latency_ms": pct.get("50.000000", 0) / 1e6, "p99_latency_ms": pct.get("99.000000", 0) / 1e6}


ROOM_FACTOR, ROOM_SPARE = 1.1, 64 << 20  # fio's file, with room left for everything else on the device


def check_room(work: Path, spec_dir: str, size: int) -> None:
    """fio writes a file of `size` bytes: refused, before anything is written, where it would fill the device."""
    probe = work
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    need = int(size * ROOM_FACTOR) + ROOM_SPARE
    if free < need:
        raise UserError(f"probing {spec_dir} with {format_size(size)} per test needs {format_size(need)} free there, and "
                        f"the device has {format_size(free)}: give a smaller --size (or probe.size in the spec)")


def probe_dirs(dirs: dict[str, Path], size: int, runtime_s: int, on_phase=print) -> dict:
    """dirs: {spec directory: a scratch dir of ours on the same device}. One result per device."""
    fio_path()
    by_device: dict = {}
    for spec_dir, work in dirs.items():
        dev = device_of(spec_dir) or f"(no block device: {spec_dir})"
        if dev in by_device:
            by_device[dev]["dirs"].append(spec_dir)
            continue
        check_room(work, spec_dir, size)
        work.mkdir(parents=True, exist_ok=True)
        entry = {"device": dev, "dirs": [spec_dir], "direct_io": True, "size_bytes": size, "tests": {}}
        try:
            for name, rw, bs, extra in TESTS:
                on_phase(f"fio {name} on {dev}")
                try:
                    entry["tests"][name] = _fio(work, rw, bs, size, runtime_s, extra, entry["direct_io"])
                except RuntimeError:
                    if not entry["direct_io"]:
                        raise
                    entry["direct_io"] = False  # e.g. tmpfs refuses O_DIRECT: the figures then include the page cache
                    entry["tests"][name] = _fio(work, rw, bs, size, runtime_s, extra, False)
        except RuntimeError as e:
            entry["error"] = str(e)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        by_device[dev] = entry
    return by_device
