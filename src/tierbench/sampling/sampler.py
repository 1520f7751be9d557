"""A background sampler of the machine during one run, stored with the run in compact columns.

Every `interval_s` (1 s by default) it takes the deltas of /proc/diskstats for
the storage's devices, /proc/stat (CPU), /proc/net/dev, and /proc/PID/io of the
engine's processes (tierbench's child processes: Spark's or Hadoop's JVMs).
After the job it calls sync() and takes one last sample, so that bytes the job
left in the page cache show up as "writeback after the job" rather than vanish.
The machine may be shared: device counters include other processes' IO.
"""

import os
import threading
import time

from . import procfs

SECTOR = procfs.SECTOR


class Series:
    """Compact columns of one host's samples, from consecutive snapshots of its counters. A snapshot is
    (epoch s, {device: diskstats fields}, cpu fields, {interface: (rx, tx)}, (engine read, write bytes));
    this machine's sampler and the node agents (sampling/nodes.py) both feed it."""

    def __init__(self, devices, interval_s: float):
        self.devices = sorted(set(devices))
        self.interval_s = interval_s
        self.start_ms: int | None = None
        self.t_ms: list[int] = []  # epoch ms at the end of each interval
        self.tags: list[str] = []  # "job" or "writeback"
        self.dev = {d: {k: [] for k in ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges", "io_ms", "in_flight")} for d in self.devices}
        self.cpu = {k: [] for k in ("user", "system", "iowait", "idle", "other")}
        self.net = {"rx_bytes": [], "tx_bytes": []}
        self.engine_io = {"read_bytes": [], "write_bytes": []}

    def add(self, prev, cur, tag: str) -> None:
        t0, d0, c0, n0, e0 = prev
        t1, d1, c1, n1, e1 = cur
        if self.start_ms is None:
            self.start_ms = int(t0 * 1000)
        self.t_ms.append(int(t1 * 1000))
        self.tags.append(tag)
        for dev in self.devices:
            a, b = d0.get(dev), d1.get(dev)
            cols = self.dev[dev]
            if a is None or b is None:
                for k in cols:
                    cols[k].append(0)
                continue
            delta = [y - x for x, y in zip(a, b)]
            cols["rd_ios"].append(delta[0])
            cols["rd_merges"].append(delta[1])
            cols["rd_bytes"].append(delta[2] * SECTOR)
            cols["wr_ios"].append(delta[4])
            cols["wr_merges"].append(delta[5])
            cols["wr_bytes"].append(delta[6] * SECTOR)
            cols["io_ms"].append(delta[9])
            cols["in_flight"].append(b[8])
        dc = [y - x for x, y in zip(c0, c1)]
        total = sum(dc) or 1
        self.cpu["user"].append(round(100 * (dc[0] + dc[1]) / total, 1))
        self.cpu["system"].append(round(100 * dc[2] / total, 1))
        self.cpu["iowait"].append(round(100 * dc[4] / total, 1))
        self.cpu["idle"].append(round(100 * dc[3] / total, 1))
        self.cpu["other"].append(round(100 * (dc[5] + dc[6] + dc[7]) / total, 1))
        rx = sum(n1[i][0] - n0.get(i, n1[i])[0] for i in n1)
        tx = sum(n1[i][1] - n0.get(i, n1[i])[1] for i in n1)
        self.net["rx_bytes"].append(rx)
        self.net["tx_bytes"].append(tx)
        self.engine_io["read_bytes"].append(max(0, e1[0] - e0[0]))
        self.engine_io["write_bytes"].append(max(0, e1[1] - e0[1]))

    def to_dict(self) -> dict:
        return {"interval_s": self.interval_s, "start_ms": self.start_ms, "t_ms": self.t_ms,
                "tags": self.tags, "devices": self.dev, "cpu": self.cpu, "net": self.net, "engine_io": self.engine_io}


class Sampler:
    """This machine, sampled in a thread of tierbench's own process (local mode, and the launcher host)."""

    def __init__(self, devices: list[str], interval_s: float = 1.0):
        self.series = Series(devices, interval_s)
        self.devices, self.interval_s = self.series.devices, interval_s
        self._stop = threading.Event()
        self._thread = None
        self._proc_last: dict[int, tuple[int, int]] = {}
        self.cpu_time_s = 0.0  # the sampler's own CPU time (for the overhead benchmark)

    # -- one sample -----------------------------------------------------------
    def _read(self):
        return (time.time(), procfs.diskstats(set(self.devices)), procfs.cpu_times(), procfs.net_bytes(), self._engine_io())

    def _engine_io(self) -> tuple[int, int]:
        """Cumulative storage-layer bytes of the engine processes; processes that ended keep their last count."""
        for pid in procfs.descendants(os.getpid()):
            io = procfs.process_io(pid)
            if io is not None:
                self._proc_last[pid] = io
        return sum(v[0] for v in self._proc_last.values()), sum(v[1] for v in self._proc_last.values())

    # -- lifecycle ----------------------------------------------------------------
    def _loop(self) -> None:
        c0 = time.thread_time()
        prev = self._read()
        self.series.start_ms = int(prev[0] * 1000)
        self.cpu_time_s += time.thread_time() - c0
        while not self._stop.wait(self.interval_s):
            c0 = time.thread_time()
            cur = self._read()
            self.series.add(prev, cur, "job")
            prev = cur
            self.cpu_time_s += time.thread_time() - c0
        self._last = prev

    def start(self) -> "Sampler":
        self._thread = threading.Thread(target=self._loop, name="tierbench-sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self, writeback: bool = True) -> dict:
        self._stop.set()
        self._thread.join()
        cur = self._read()
        self.series.add(self._last, cur, "job")
        if writeback:
            os.sync()  # what the job left dirty in the page cache reaches the devices now
            after = self._read()
            self.series.add(cur, after, "writeback")
        return self.to_dict()

    def to_dict(self) -> dict:
        return self.series.to_dict()
