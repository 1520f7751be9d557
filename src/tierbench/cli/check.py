"""tierbench check [SPEC]: the studies' OS advice checked on every node a study uses, each check with its fix."""

import json

ICONS = {"pass": "✓", "warn": "⚠", "fail": "✗", "n/a": "·"}


DESCRIPTION = """\
Checks what the published Hadoop/Spark storage studies set on their nodes: vm.swappiness, transparent huge
pages, the open-file limit, the CPU governor, noatime on the data mounts, the data devices' IO scheduler,
readahead and 4K alignment, and (when a study moves data between hosts) NIC speed and MTU. With a SPEC: its data
and intermediate directories, here and on every [cluster] node (over ssh). Nothing is changed: each check says
pass, warn or fail with the value found and its fix (n/a: not reported). A study runs the same check when it
starts and shows it in its report. Exit status 1 when a check fails. Last, the cgroup hierarchy (v1 or v2) and
controllers this machine has, and what tierbench can do with them (device emulation, the scale model's budget)."""

EPILOG = """\
examples:
  tierbench check                       # this machine, the current folder's mount
  tierbench check examples/quick.toml   # the study's dirs, here and on its nodes
  tierbench check --dir /data/1 --dir /data/2 --json"""


def add_parser(subparsers):
    p = subparsers.add_parser("check", help="check each node's OS settings against the studies' advice",
                              description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("spec", nargs="?", help="study spec (TOML): check its directories and nodes")
    p.add_argument("--dir", action="append", default=[], metavar="DIR", help="a directory to check (repeatable; "
                   "without SPEC)")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    return p


def run(args) -> int:
    from ..analysis.node_check import check_nodes, check_study

    if args.spec and args.dir:
        from ..errors import UserError

        raise UserError("--dir: give a SPEC (its directories are checked) or --dir DIR, not both")
    if args.spec:
        from ..scale.derive import load_spec

        result = check_study(load_spec(args.spec))
    else:
        import os

        result = check_nodes(args.dir or [os.getcwd()])
    from ..storage.cgroups import describe

    result["cgroups"] = describe()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_checks(result)
    return 1 if result["summary"]["fail"] else 0


def print_checks(result: dict, out=None) -> None:  # None: print's sys.stdout as it is at the call, not at import
    from ..analysis.node_check import folded

    checks = folded(result["checks"])
    for node in dict.fromkeys(c["node"] for c in checks):
        print(node, file=out)
        for c in (c for c in checks if c["node"] == node):
            where = f" [{c['where']}]" if c["where"] else ""
            print(f"  {ICONS[c['status']]} {c['status']:<4} {c['name']}{where}: {c['found']}", file=out)
            if c["fix"]:
                print(f"         fix: {c['fix']}", file=out)
    for line in result.get("cgroups", ()):
        print(line, file=out)
    s = result["summary"]
    print(f"{s['pass']} pass, {s['warn']} warn, {s['fail']} fail, {s['n/a']} n/a", file=out)
