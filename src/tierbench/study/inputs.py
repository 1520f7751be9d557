"""On --resume: which recorded runs' outputs are gone with the data root they were written in, and are the input of a
run still to do -- those run again first.

A data root is made (and marked, layout.claim) once, when its study first runs, and lives until the study ends. A
root made after a run ended -- an emulated device brought down (`emulate down`, a reboot) and built again empty by
the resume, or a root deleted by hand -- cannot hold that run's output. Without this, the run that read it failed
on every --resume (TeraSort on a TeraGen recorded ok whose data had gone with its device), and the study could
never finish. The root's birth is the `created` time its owner file records, so this holds for folders recorded
before it existed too."""

import json
from datetime import datetime
from pathlib import Path

from ..spec import PlannedRun, Spec
from ..workloads import producer_of
from ..storage.layout import OWNER_FILE, study_root


def root_born(root: Path) -> float | None:
    """When tierbench made (and marked) a data root, as its owner file says; None when it cannot tell."""
    owner = root / OWNER_FILE
    try:
        if owner.is_symlink():  # (not ours to read: layout.check refuses the root)
            return None
        created = json.loads(owner.read_text()).get("created")
    except (OSError, ValueError, AttributeError):
        return None
    return float(created) if isinstance(created, (int, float)) and not isinstance(created, bool) else None


def _ended(record: dict) -> float | None:
    try:
        return datetime.fromisoformat(record.get("ended_at") or record["started_at"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return None


def output_gone(spec: Spec, record: dict) -> bool:
    """The run's output lay in a data root of its configuration that was made after the run ended."""
    ended = _ended(record)
    try:
        config = spec.config(record["config"])
    except (KeyError, StopIteration):
        return False
    born = [root_born(study_root(d, spec.root_name)) for d in config.local_data]
    return ended is not None and any(b is not None and b > ended for b in born)


def producer_key(spec: Spec, planned: PlannedRun) -> str | None:
    """The run key of the run whose output `planned` reads (as the lifecycle finds it), or None."""
    wspec = next(w for w in spec.workloads if w.label == planned.label)
    producer = producer_of(wspec.name, wspec.params, spec.workloads)
    if producer is None:
        return None
    return PlannedRun(0, planned.repeat, planned.config, producer.name, producer.label, planned.engine,
                      planned.variant).key


def inputs_kept(spec: Spec, plan: list[PlannedRun], done: dict[str, dict]) -> tuple[dict[str, dict], list[str]]:
    """`done` (the ok records by run key) without the runs whose output a run still to do reads and that is gone
    (output_gone), following each back to its own input (TeraValidate's TeraSort, then its TeraGen); and their keys,
    which run again before the runs that read them (the plan puts producers first)."""
    by_key = {p.key: p for p in plan}
    stale: list[str] = []
    waiting = [p for p in plan if p.key not in done]
    while waiting:
        key = producer_key(spec, waiting.pop())
        if key in done and key not in stale and key in by_key and output_gone(spec, done[key]):
            stale.append(key)
            waiting.append(by_key[key])  # it runs again: its own input must be there too
    return {k: r for k, r in done.items() if k not in stale}, [k for k in by_key if k in stale]
