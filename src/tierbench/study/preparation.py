"""Before a study's first run: every check that can refuse it, then its results folder opened (made, or checked and
continued on --resume), what its figures will measure said, the node checked and its devices probed."""

import sys

from ..analysis.validity import study_lines
from ..engines.spark_versions import prepare_releases
from ..errors import UserError
from ..machine import machine_facts, tool_facts
from ..sampling.devices import storage_map
from ..store.pooling import check_resume
from ..units import format_size
from . import devices
from .gateways import check_gateways
from .lifecycle import DROP_CACHES_FILE, can_drop_caches, now


def prepare(runner) -> list[dict]:
    """The study ready to run (StudyRunner's state: its devices up in `runner.emulated`); the records stored before."""
    spec, results = runner.spec, runner.results
    if spec.drop_caches == "always" and not can_drop_caches():
        raise UserError(f"{spec.source}: drop_caches: \"always\" needs root (writing {DROP_CACHES_FILE}); use \"auto\" or \"never\"")
    runner.emulated = devices.emulate(spec, runner.unemulated)
    runner.layout.check()
    check_gateways(spec)
    # (another Spark release than the project's: installed and the jobs compiled for it, or refused in one line)
    prepare_releases(spec, lambda line: print(f"tierbench: {line}", file=sys.stderr, flush=True))
    runner.nodes.start_ssh()  # the spec's [cluster] nodes reachable, or one line before anything is written
    records = _open_results(runner)
    results.keep_room()  # (a run that fills the disk is still recorded)
    if not records:
        runner.layout.reset()
    if runner.emulated:
        results.update_study(emulated=runner.emulated)
    if runner.unemulated and any(c.emulated for c in spec.storage):
        results.update_study(emulation_skipped=True)  # device name -> profile, as applied and as fio measured it
    study = results.study()
    if "storage_map" not in study:
        results.update_study(storage_map=_storage_map(spec))
        # what the figures will measure, said before anything runs (the report says it again); a calibration
        # runs in memory on purpose
        for line in [] if runner.side_study else study_lines(spec.to_dict(), machine_facts(), results.study()["storage_map"]):
            print(f"tierbench: warning: {line}", file=sys.stderr, flush=True)
    if runner.side_study:  # (the study itself checks the node, and probes its devices)
        return records
    if "node_check" not in study:
        _node_check(spec, results)
    if spec.probe and "probe" not in study:  # (a probe.json `tierbench probe` left here counts: study() reads it)
        _probe(spec, results)
    return records


def _open_results(runner) -> list[dict]:
    """The results folder continued (--resume: the same study, runs that may be pooled) or made; its records."""
    spec, results = runner.spec, runner.results
    if results.exists():
        results.check_may_run(runner.resume)
        study = results.study()
        if study.get("fingerprint") != spec.fingerprint():
            raise UserError(f"{results.path}: the spec changed since these results were recorded "
                            "(configurations, engines, workloads or repeats differ); runs cannot be pooled: use another --out")
        runner.layout.claim()  # (locks the data roots: a second study on them stops here)
        results.cut_torn_tail()
        records = results.records()
        check_resume(study, records, machine_facts(), tool_facts(), runner.allow_mixed)
        results.update_study(spec=spec.to_dict())  # prices and descriptions may have been edited
        return records
    results.check_writable_as_new()
    runner.layout.claim()  # (the data roots may lie inside the results folder: the quickstart's do)
    results.create(checked=True, study={
        "name": spec.name,
        "fingerprint": spec.fingerprint(),
        "spec": spec.to_dict(),
        "variants": [v.__dict__ for v in spec.variants()],
        "plan": [p.to_dict() for p in runner.plan],
        "created_at": now(),
        "study_id": spec.study_id,  # (in its devices' and data roots' names: identity.py)
        "command_line": runner.command_line,
        "machine": machine_facts(),
        **tool_facts(),
    })
    return []


def _storage_map(spec) -> dict:
    roles: dict[str, list[str]] = {"data": [], "intermediate": []}
    for c in spec.storage:
        roles["data"] += [d for d in c.local_data if d not in roles["data"]]
        roles["intermediate"] += [d for d in c.intermediate if d not in roles["intermediate"]]
    return storage_map(roles)


def _node_check(spec, results) -> None:
    """The studies' OS advice checked on this machine and the [cluster] nodes (tierbench check), stored with the
    study for its report; a check that cannot run is recorded as such, never stops the study."""
    from ..analysis.node_check import check_study

    try:
        result = check_study(spec)
    except Exception as e:  # noqa: BLE001 - advice only: the study goes on without it
        result = {"error": f"{type(e).__name__}: {e}", "checks": [], "summary": {}}
    results.update_study(node_check=result)
    s = result.get("summary") or {}
    if s.get("fail") or s.get("warn"):
        print(f"tierbench: node check: {s.get('fail', 0)} fail, {s.get('warn', 0)} warn (the report lists each with its "
              "fix; tierbench check SPEC prints them)", file=sys.stderr, flush=True)


def _probe(spec, results) -> None:
    from ..sampling.probe import probe_dirs
    from .probe import scratch_dirs

    dirs = scratch_dirs(spec)
    print(f"probing {len(dirs)} directories with fio ({format_size(spec.probe_size)} each)...", file=sys.stderr, flush=True)
    try:
        result = probe_dirs(dirs, spec.probe_size, spec.probe_runtime_s, on_phase=lambda t: None)
    except UserError as e:  # the study itself can still run; the report says why there are no ceilings
        print(f"tierbench: warning: device ceilings skipped: {e}", file=sys.stderr)
        results.update_study(probe_error=str(e))
        return
    results.save_derived("probe", result)
