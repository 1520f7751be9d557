"""Which runs may be pooled: runs measured on another machine, with another engine version or another
tierbench version are not the same experiment. Refused on --resume and in analysis, with a one-line reason,
unless the user says --allow-mixed.

They read the runs as stored.StoredRun; the runner's --resume check still hands them dicts (read by the same loader),
which are made into StoredRuns first."""

from ..errors import UserError
from .stored import StoredRun, StudyFile

MACHINE_KEYS = ("cpu_model", "cpu_cores", "memory_bytes")  # what makes a machine the same one (not its host name)


def machine_id(machine: dict | None) -> tuple:
    return tuple((machine or {}).get(k) for k in MACHINE_KEYS)


def _describe(machine: dict | None) -> str:
    m = machine or {}
    return f"{m.get('cpu_model')}, {m.get('cpu_cores')} cores, {m.get('memory_bytes')} bytes RAM"


def _runs(runs: list[StoredRun] | list[dict]) -> list[StoredRun]:
    return [r if isinstance(r, StoredRun) else StoredRun.from_dict(r) for r in runs]


def check_resume(study: StudyFile | dict, records: list[StoredRun] | list[dict], machine: dict, tool: dict,
                 allow_mixed: bool) -> None:
    """Before resuming: this machine and this tierbench must be the ones the recorded runs came from."""
    if allow_mixed:
        return
    recorded = study.machine if isinstance(study, StudyFile) else study.get("machine")
    if recorded and machine_id(recorded) != machine_id(machine):
        raise UserError(f"these results were recorded on another machine ({_describe(recorded)}; this one: "
                        f"{_describe(machine)}): runs of two machines cannot be pooled; use another --out, or "
                        "pass --allow-mixed to pool them anyway")
    versions = {r.tool_version for r in _runs(records)} - {None}
    if versions and versions != {tool["tool_version"]}:
        raise UserError(f"these results were recorded by tierbench {', '.join(sorted(versions))}, this is "
                        f"{tool['tool_version']}: runs cannot be pooled; use another --out, or pass --allow-mixed")


def mixed_pools(runs: list[StoredRun] | list[dict]) -> list[str]:
    """One line per (variant, workload) whose ok runs differ in machine, engine version or tierbench version."""
    groups: dict[tuple, list[StoredRun]] = {}
    for r in _runs(runs):
        if r.ok:
            groups.setdefault((r.variant, r.label), []).append(r)
    out = []
    for (variant, label), rs in groups.items():
        for what, key in (("machines", lambda r: machine_id(r.machine)),
                          ("engine versions", lambda r: r.engine_version),
                          ("tierbench versions", lambda r: r.tool_version)):
            seen = {key(r) for r in rs}
            if len(seen) > 1:
                shown = sorted(", ".join(map(str, v)) if isinstance(v, tuple) else str(v) for v in seen)
                out.append(f"{variant} / {label}: runs from {len(seen)} {what} ({'; '.join(shown)})")
                break
    return out


def check_pools(runs: list[StoredRun] | list[dict], allow_mixed: bool, where: str) -> list[str]:
    """Refuse to analyse mixed pools unless allowed; when allowed, the lines to show as warnings."""
    mixed = mixed_pools(runs)
    if mixed and not allow_mixed:
        raise UserError(f"{where}: runs that differ cannot be pooled: {mixed[0]}"
                        + (f" (and {len(mixed) - 1} more)" if len(mixed) > 1 else "") + "; pass --allow-mixed to pool them anyway")
    return mixed
