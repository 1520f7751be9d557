"""tierbench advise: which tier for data and intermediate data, the SSD's split and size, which knob -- with numbers."""

import json

from ..errors import UserError
from ..units import parse_size


DESCRIPTION = """\
From a study's runs and the what-if model (tierbench predict), for one cluster shape (--hardware; default:
the scale model's target, else the SanDisk 2014 cluster of 6 nodes x 2 drives): the jobs predicted on all-HDD,
HDD + one SSD per node for intermediate data, and all-SSD; how to split an SSD into directories beside HDDs so
that round-robin loads each by its speed; the SSD space intermediate data needs per node at --size; and what
each swept knob did, measured. With --cloud: which instance type, storage and node count to pick per job."""

EPILOG = """\
examples:
  tierbench advise tierbench-results/quickstart
  tierbench advise tierbench-results/quickstart --hardware sandisk-all-hdd --size 10TB --json
  tierbench advise tierbench-results/quickstart --cloud aws --size 1TB --nodes 4..32"""


def add_parser(subparsers):
    c = subparsers.add_parser("advise", help="which tier for data and shuffle, SSD split and size",
                              description=DESCRIPTION, epilog=EPILOG)
    c.add_argument("results", nargs="+", help="a study's results folder, or several of one machine")
    c.add_argument("--json", action="store_true", help="print JSON")
    cluster = c.add_argument_group("your cluster")
    cluster.add_argument("--hardware", metavar="HW.toml", help="the cluster shape (a file or a shipped name; "
                         "default: the scale model's target, [scale] target in the spec, as the results keep it, "
                         "else sandisk-all-hdd): its nodes, cores, network and drive count are kept, its drives "
                         "are varied")
    cluster.add_argument("--size", help="the data size to advise for, e.g. 1TB = 10^12 bytes (TB/GB/MB: powers of "
                         "1000; TiB/GiB/MiB: of 1024); default: the scale model's target size, [scale] size in "
                         "the spec, when the study has one; else the largest measured")
    cloud = c.add_argument_group("a cloud instead")
    cloud.add_argument("--cloud", action="append", default=[], metavar="CLOUD",
                       help="which instance type, storage (local NVMe, a volume, the object store) and node count "
                            "of this cloud to pick per job (aws, gcp, azure; repeat for several; docs/cloud.md)")
    cloud.add_argument("--cloud-catalog", metavar="FILE", help="your own cloud catalog (prices, instance types) "
                       "over the shipped one")
    cloud.add_argument("--nodes", help="node counts to try: 8, a list 4,8,16 or a range 4..32 (the default)")
    return c


def run(args) -> int:
    from ..model.advise import advise
    from ..model.hardware import load_hardware
    from ..scale.target import choose_size
    from ..model.whatif import study_model, validate
    from ..store import ResultsDir

    try:
        size = parse_size(args.size) if args.size else None
    except ValueError as e:
        raise UserError(f"--size: {e}") from None
    choice = choose_size(args.results, size)
    if args.cloud or args.cloud_catalog or args.nodes is not None:
        return _cloud(args, choice)
    hw, hw_note = (load_hardware(args.hardware), None) if args.hardware else target_hardware(choice)
    model, _, _ = study_model(args.results)
    studies = [ResultsDir(r).load(analysed=True) for r in args.results]
    items = advise(model, hw, choice.size_bytes, studies, validate(model)["hardware_median_abs_error"])
    notes = [n for n in (choice.note, hw_note, choice.estimate_note()) if n]
    if args.json:
        head = [_scale_item(choice, notes, hw, args.hardware)] if notes else []
        print(json.dumps(head + [a.to_dict() for a in items], indent=2))
        return 0
    _print(notes, items)
    return 0


def _print(notes: list[str], items) -> None:
    """The notes first (the size and cluster advised at), then each piece of advice with its numbers."""
    for line in notes:
        print(line)
    for a in items:
        print(f"{a.topic}: {a.advice}")
        for n in a.numbers:
            print(f"    {n}")


def _cloud(args, choice) -> int:
    """advise --cloud: the ranked cloud options of predict --cloud, said per job."""
    from ..model.advise import cloud_advice
    from ..model.cloud import measured_request_rates
    from ..model.cloud_rank import rank
    from ..model.whatif import study_model, validate
    from .predict import cloud_options

    if not args.cloud:
        raise UserError("--cloud-catalog and --nodes are for --cloud aws|gcp|azure: give --cloud too")
    clouds, nodes = cloud_options(args)
    model, _, _ = study_model(args.results)
    items = cloud_advice(rank(model, validate(model), clouds, nodes, choice.size_bytes, measured_request_rates(args.results)))
    if args.json:
        print(json.dumps([a.to_dict() for a in items], indent=2))
        return 0
    _print([choice.note] if choice.note else [], items)
    return 0


def _scale_item(choice, notes: list[str], hw, given_hw: str | None) -> dict:
    """advise --json's first item when the study is a scale model: the size and cluster advised at, and where
    each came from (an item like the others, so the output stays a list of advice)."""
    return {"topic": "scale target", "advice": "; ".join(notes), "numbers": [], "size_bytes": choice.size_bytes,
            "size_from": choice.size_from, "scale_target": choice.target,
            "hardware": given_hw or (hw.name if hw else "sandisk-all-hdd"),
            "hardware_from": "--hardware" if given_hw else ("scale target" if hw else "default"),
            **{k: v for k, v in choice.to_dict().items() if k == "core_speed_estimate"}}


def target_hardware(choice):
    """(the cluster shape to advise on, a line saying so) when --hardware is not given: the scale model's target as
    the results keep it (a user's file: its description, as loaded when the study ran, wherever the file is now);
    (None, None) when the study is no scale model of one target."""
    if choice.target is None:
        return None, None
    hw = choice.hardware()
    kept = f" (from {hw.file}, as the results keep it)" if hw.file else ""
    return hw, (f"cluster: {choice.target}{kept}, the scale model's target ([scale] target in the spec); "
                "--hardware to change")
