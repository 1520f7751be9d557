"""tierbench workloads: what can run, with parameters, metrics and engines."""


def add_parser(subparsers):
    return subparsers.add_parser(
        "workloads", help="list the workloads: parameters, metrics, engines",
        description="Lists every workload a spec's [[workloads]] can name: what it does, which engines run it "
                    "(spark, hadoop), which workload's output it reads, each parameter with its type and default "
                    "(sizes such as 1GB), the metrics it records with their units, and its IO roles (which metric "
                    "is input read, intermediate written, output written) and phases. How a spec uses them: "
                    "docs/studies.md.",
        epilog="examples:\n"
               "  tierbench workloads\n"
               "  tierbench workloads | grep -A6 '^terasort'     # one workload")


def run(args) -> int:
    from ..workloads import WORKLOADS, METRICS
    from ..units import format_size

    for w in WORKLOADS.values():
        flow = []
        if w.consumes:
            flow.append(f"reads {w.producer}'s output")
        if w.produces:
            flow.append(f"writes {w.produces}")
        print(f"{w.name}  ({w.title}; engines: {', '.join(w.engines)}{'; ' if flow else ''}{', '.join(flow)})")
        print(f"    {w.doc}")
        for p in w.params:
            default = "none" if p.default is None else (format_size(p.default) if p.kind == "size" else
                                                        str(p.default).lower() if p.kind == "bool" else repr(p.default) if p.kind == "text" else p.default)
            print(f"    {p.name:<12} {p.kind:<6} default {default}: {p.doc}")
        print(f"    metrics: {', '.join(f'{m} [{METRICS[m].unit}]' for m in w.metrics)}")
        roles = [f"{role} = {metric}" for role, metric in (("input read", w.io.input), ("intermediate written", w.io.intermediate),
                                                            ("output written", w.io.output)) if metric]
        print(f"    IO roles: {', '.join(roles) or 'none'}; phases: {', '.join(w.phases) or 'one per Spark stage'}")
        print()
    return 0
