"""Reading what Hadoop's jobs print: job counters, TestDFSIO's results and per-task lines, timestamps."""

import re
from datetime import datetime

TS = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")
COUNTERS_START = re.compile(r"mapreduce\.Job: Counters: \d+")
DFSIO_LINE = re.compile(r"TestDFSIO: +(Number of files|Total MBytes processed|Throughput mb/sec|Average IO rate mb/sec|IO rate std deviation|Test exec time sec): (.*)$")


def timestamps(log: str) -> list[tuple[datetime, str]]:
    out = []
    for line in log.splitlines():
        m = TS.match(line)
        if m:
            out.append((datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f"), line))
    return out


def job_seconds(log: str) -> float | None:
    """From the first log line to the last job's "completed successfully" (JVM start excluded)."""
    ts = timestamps(log)
    done = [t for t, line in ts if "completed successfully" in line]
    if not ts or not done:
        return None
    return (done[-1] - ts[0][0]).total_seconds()


def counters(log: str, block: int = -1) -> dict[str, dict[str, int]]:
    """The job client's counters: the last "Counters: N" block of the mapreduce.Job logger, or the
    `block`-th one (a program that runs several jobs, such as Grep, prints one block per job)."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if COUNTERS_START.search(line)]
    if not starts:
        return {}
    groups: dict[str, dict[str, int]] = {}
    group = None
    for line in lines[starts[block] + 1:]:
        if line.startswith("\t\t") and group is not None and "=" in line:
            name, _, value = line.strip().rpartition("=")
            try:
                groups[group][name] = int(value)
            except ValueError:
                pass
        elif line.startswith("\t") and not line.startswith("\t\t"):
            group = line.strip()
            groups.setdefault(group, {})
        else:
            break
    return groups


def counter(groups: dict, name: str, default=None):
    for g in groups.values():
        if name in g:
            return g[name]
    return default


def dfsio_printed(log: str) -> dict[str, str]:
    out = {}
    for line in log.splitlines():
        m = DFSIO_LINE.search(line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def dfsio_tasks(log: str) -> tuple[list[int], list[int]]:
    """Per-task bytes and ms, as TestDFSIO's mappers log them (visible in local mode)."""
    sizes = [int(x) for x in re.findall(r"TestDFSIO: Number of bytes processed = (\d+)", log)]
    times = [int(x) for x in re.findall(r"TestDFSIO: Exec time = (\d+)", log)]
    return (sizes, times) if len(sizes) == len(times) else ([], [])


def task_phases(log: str) -> list[dict]:
    """map / shuffle / reduce-output intervals from LocalJobRunner's task lines (local mode only)."""
    def ms(t: datetime) -> int:
        return int(t.timestamp() * 1000)

    starts = {"m": [], "r": []}
    ends = {"m": [], "r": []}
    merge = []
    for t, line in timestamps(log):
        m = re.search(r"Starting task: attempt_\S+?_([mr])_\d+", line)
        if m:
            starts[m.group(1)].append(ms(t))
        m = re.search(r"Task 'attempt_\S+?_([mr])_\d+_\d+' done", line)
        if m:
            ends[m.group(1)].append(ms(t))
        if "finalMerge called" in line:
            merge.append(ms(t))
    out = []
    if starts["m"] and ends["m"]:
        out.append({"phase": "map", "start_ms": min(starts["m"]), "end_ms": max(ends["m"])})
    if starts["r"] and ends["r"]:
        cut = min(merge) if merge else min(starts["r"])
        out.append({"phase": "shuffle", "start_ms": min(starts["r"]), "end_ms": cut})
        out.append({"phase": "reduce/output", "start_ms": cut, "end_ms": max(ends["r"])})
    return out


def held_bytes(log: str) -> int:
    """Bytes of map spills and outputs the job kept in memory for a scale model (tierbench.io.HeldFiles logs each)."""
    return sum(int(n) for n in re.findall(r"held \S+ in memory \((\d+) bytes\)", log))


def direct_read_bytes(log: str) -> int:
    """Bytes of reduce inputs a scale model's job read past the page cache (tierbench.io.DirectReads logs each)."""
    return sum(int(n) for n in re.findall(r"read \S+ past the page cache \((\d+) bytes from the drive\)", log))


class HadoopLog:
    """A finished Hadoop job's log, as the workloads read it (their hadoop_result): counters, splits, timings."""

    def __init__(self, text: str):
        self.text = text
        self.groups = counters(text)  # the last job's counters, by group
        self.counters = {name: v for g in self.groups.values() for name, v in g.items()}

    def counters_of(self, block: int) -> dict[str, int]:
        """The counters of the `block`-th job of a program that runs several (Grep: 0 is the search)."""
        return {name: v for g in counters(self.text, block).values() for name, v in g.items()}

    def splits(self) -> int:
        found = re.findall(r"number of splits:(\d+)", self.text)
        return int(found[0]) if found else 0

    def maps_done(self) -> int:
        return len(re.findall(r"Task 'attempt_\S+_m_\d+_\d+' done", self.text))

    def job_seconds(self) -> float | None:
        return job_seconds(self.text)

    def dfsio_printed(self) -> dict[str, str]:
        return dfsio_printed(self.text)

    def dfsio_tasks(self) -> tuple[list[int], list[int]]:
        return dfsio_tasks(self.text)
