"""The spec's `[[workloads]]`: which workloads run, with which parameters, producers before their consumers; a
parameter given as a list (a sweep) makes one entry per value, labelled LABEL.KNOB-VALUE."""

from dataclasses import dataclass

from ..errors import SpecError
from ..fields import unknown_fields
from ..ownership import NAME_RE
from ..toolchain import PROJECT_SPARK
from ..workloads import WORKLOADS, producer_of, producers_of
from .knobs import swept, token


@dataclass(frozen=True)
class WorkloadSpec:
    name: str  # the workload kind, a key of WORKLOADS
    label: str  # unique within the study; the name unless given
    params: dict  # canonical values (sizes in bytes)

    @property
    def definition(self):
        """The workload itself (workloads.Workload): its engines, checks, metrics, IO roles."""
        return WORKLOADS[self.name]


def parse_workloads(src, raw: dict, engines, config_names: list[str], sweeps: list) -> list[WorkloadSpec]:
    """[[workloads]] entries, sweeps expanded, labels unique, producers first."""
    wl_raw = raw.get("workloads")
    if not isinstance(wl_raw, list) or not wl_raw:
        raise SpecError(src, "workloads", "at least one workload is needed, e.g. [[workloads]] name = \"teragen\"")
    workloads = [m for i, w in enumerate(wl_raw) for m in _parse_workload(src, f"workloads[{i}]", w, engines, config_names, sweeps)]
    labels = [w.label for w in workloads]
    for i, lab in enumerate(labels):
        if labels.index(lab) != i:
            raise SpecError(src, f"workloads[{i}]", f"{lab!r} is listed twice; give one of them a distinct `label`")
    return _order_producers_first(src, workloads)


def _parse_workload(src, where, w, engines, config_names, sweeps: list) -> list[WorkloadSpec]:
    """One [[workloads]] entry: one WorkloadSpec, or one per value of its swept parameter."""
    if not isinstance(w, dict) or "name" not in w:
        raise SpecError(src, f"{where}.name", f"missing: which workload; accepted: {', '.join(WORKLOADS)}")
    wl = WORKLOADS.get(w["name"])
    if wl is None:
        raise SpecError(src, f"{where}.name", f"unknown workload {w['name']!r}; accepted: {', '.join(WORKLOADS)}")
    for e in engines:
        if e.kind not in wl.engines:
            raise SpecError(src, f"{where}.name", f"{wl.name} does not run on the {e.kind} engine ({e.name}); it runs on: {', '.join(wl.engines)}")
    label = w.get("label", wl.name)
    if not isinstance(label, str) or not NAME_RE.match(label):
        raise SpecError(src, f"{where}.label", f"expected letters, digits, '.', '_' or '-', got {label!r}")
    unknown_fields(src, f"{where}.", w, ("name", "label") + tuple(p.name for p in wl.params))
    knob, values = swept(src, where, w, [p.name for p in wl.params if p.kind != "names"])
    members = []
    for value in values or [None]:
        entry = dict(w, **({knob: value} if knob else {}))
        params = _workload_params(src, where, wl, entry, engines, config_names)
        _check_runtime(src, where, wl, params, engines)
        members.append(WorkloadSpec(wl.name, f"{label}.{knob}-{token(value)}" if knob else label, params))
    if knob:
        sweeps.append({"level": "workload", "base": label, "knob": knob,
                       "members": [{"name": m.label, "value": v} for m, v in zip(members, values)]})
    return members


def _workload_params(src, where, wl, w: dict, engines, config_names) -> dict:
    params = {}
    for p in wl.params:
        if p.name in w:
            try:
                params[p.name] = p.parse(w[p.name])
            except ValueError as e:
                raise SpecError(src, f"{where}.{p.name}", str(e)) from None
        else:
            params[p.name] = p.default
    problem = wl.check_params(params, {e.kind for e in engines}, config_names)
    if problem:
        raise SpecError(src, f"{where}.{problem[0]}", problem[1])
    return params


def _check_runtime(src, where, wl, params, engines) -> None:
    """A workload whose Spark job needs a runtime built for some Spark releases (a table format's) refuses a spark
    engine of another release, naming the engine's field: before the study writes anything."""
    runtime = wl.spark_runtime(params)
    for e in engines:
        if runtime and e.kind == "spark" and (e.spark or PROJECT_SPARK) not in runtime.releases:
            field = "engine.spark" if len(engines) == 1 and e.name == e.kind else f"engines.{e.name}.spark"
            accepted = " or ".join(f'"{r}"' for r in runtime.releases)
            raise SpecError(src, field, f"{wl.name} ({where}) needs {runtime.title}, built for Spark "
                            f"{accepted}; got {e.spark or PROJECT_SPARK}: set {field} = {accepted}")


def check_against_producers(src, workloads) -> None:
    """Each workload's parameters against its producer's (e.g. SQL query names of the generated benchmark)."""
    for i, w in enumerate(workloads):
        wl = WORKLOADS[w.name]
        producer = producer_of(w.name, w.params, workloads)
        problem = wl.check_with_producer(w.params, producer.params) if producer else None
        if problem:
            raise SpecError(src, f"workloads[{i}].{problem[0]}", problem[1])


def _order_producers_first(src, workloads: list[WorkloadSpec]) -> list[WorkloadSpec]:
    """Stable order in which every consumer comes after its producer; a consumer without one is an error."""
    kinds = {w.name for w in workloads}
    for i, w in enumerate(workloads):
        producer = WORKLOADS[w.name].producer
        if producer and producer not in kinds:
            raise SpecError(src, f"workloads[{i}]", f"{w.name} reads the output of {producer}, which the spec does not list; "
                            f"add [[workloads]] name = \"{producer}\"")
        found = producers_of(w.name, w.params, workloads) if producer else [w]
        if not found:  # (of its kind, none it reads: a table-load of another table format)
            raise SpecError(src, f"workloads[{i}]", f"{w.name} reads the output of a {producer} {WORKLOADS[w.name].reads_what(w.params)}, "
                            "which the spec does not list; add one")
        if len(found) > 1:
            raise SpecError(src, f"workloads[{i}]", f"{w.name} reads the output of {producer}, which is listed more than once: "
                            "which one it reads is ambiguous; list it once")
    ordered: list[WorkloadSpec] = []
    remaining = list(workloads)
    while remaining:
        for w in remaining:
            producer = WORKLOADS[w.name].producer
            if producer is None or any(o is producer_of(w.name, w.params, workloads) for o in ordered):
                ordered.append(w)
                remaining.remove(w)
                break
    return ordered
