"""tierbench services up|down|status NAME: real local servers on 127.0.0.1.

What each service prints is its own (`up_lines`, `status_line`); this module
maps the options to the service's constructor and prints.
"""

import argparse
import sys
from pathlib import Path

from .. import bounds
from ..errors import UserError


def _services() -> dict:
    from ..services.registry import SERVICES

    return SERVICES


class _ServiceNames:
    """The registry's service names as argparse's `choices`, looked up only when a `services` command is parsed
    or its usage printed: finding the services imports their modules, which every other command does without."""

    def __contains__(self, name) -> bool:
        return name in _services()

    def __iter__(self):
        return iter(_services())


def add_parser(subparsers):
    sv = subparsers.add_parser("services", help="start, stop or inspect real local servers (yarn, spark, hdfs, s3) on 127.0.0.1",
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               description="Real servers for trying tierbench on one machine, each in its own directory with "
                                           "its configuration, logs and pid files. Bound to 127.0.0.1 only.\n"
                                           "  yarn   ResourceManager + NodeManager (Hadoop 3.4.2); its conf dir is what a\n"
                                           "         hadoop engine in mode = \"yarn\" submits with\n"
                                           "  spark  a Spark standalone Master + --workers Workers (pyspark's own); a spark\n"
                                           "         engine with master = \"spark://127.0.0.1:PORT\" runs on it, the Workers\n"
                                           "         restarted on each storage configuration's intermediate dirs\n"
                                           "  hdfs   a NameNode + --datanodes DataNodes (Hadoop 3.4.2): data = { type = \"hdfs\", ... }\n"
                                           "  s3     Ceph (mon, mgr, --osds OSDs, --gateways radosgw, HAProxy with --balancer\n"
                                           "         haproxy) with an S3 user and bucket: data = { type = \"s3\", ... };\n"
                                           "         installs Ceph (and HAProxy) from Debian when root",
                               epilog="examples:\n"
                                      "  tierbench services up yarn\n"
                                      "  export HADOOP_CONF_DIR=$(tierbench services status yarn --conf-dir)\n"
                                      "  tierbench services down yarn\n"
                                      "  tierbench services up spark --workers 2 --worker-dirs /ssd1/spark /ssd2/spark\n"
                                      "  tierbench services up s3 --osds 5 --ec 3+2 --gateways 2 --balancer haproxy")
    sv.add_argument("action", choices=("up", "down", "status"))
    sv.add_argument("service", choices=_ServiceNames())
    # numbers are read by bounds.option (one line for "abc", a sane range each), not argparse's int
    sv.add_argument("--datanodes", default=2, help=f"hdfs: number of DataNodes (default: 2; {bounds.DATANODES.words()})")
    sv.add_argument("--port", help="hdfs: the NameNode's RPC port; s3: the endpoint's (HAProxy's or radosgw's); so that specs can name a fixed "
                    "address such as hdfs://127.0.0.1:8020 or http://127.0.0.1:7480 (default: a free port)")
    sv.add_argument("--datanode-dirs", default=1, help="hdfs: data dirs per DataNode (default: 1; "
                    f"{bounds.DATANODE_DIRS.words()})")
    sv.add_argument("--data-dir", action="append", help="hdfs: where DataNodes keep their blocks (repeat for several "
                    "devices; DataNode i uses the i-th, round-robin; default: inside the service's directory)")
    sv.add_argument("--workers", default=2, help="spark: number of Workers (default: 2; "
                    f"{bounds.SPARK_WORKERS.words()}), 1 core and 1 GB each; Worker i listens on 127.0.0.(i+1)")
    sv.add_argument("--worker-dirs", nargs="+", metavar="DIR", help="spark: where Workers keep shuffle and spill data "
                    "when no study has put them on its own dirs (Worker i on the i-th DIR, round-robin, in DIR/worker-<i>; "
                    "default: inside the service's directory)")
    sv.add_argument("--osds", help="s3: OSDs, each BlueStore on its own sparse file (default: 1; a service "
                    f"keeps what it was created with; {bounds.OSDS.words()})")
    sv.add_argument("--gateways", help=f"s3: radosgw instances (default: 1; {bounds.GATEWAYS.words()})")
    sv.add_argument("--ec", metavar="K+M", help="s3: an erasure-coded data pool of K data and M coding chunks, such as 3+2 "
                    "(needs --osds >= K+M; default: replicated pools of size min(3, OSDs))")
    sv.add_argument("--balancer", choices=("haproxy", "none"), help="s3: haproxy puts HAProxy (round robin) in front of "
                    "the gateways, on --port, with an admin socket a study's `gateways` sweep uses (default: none: "
                    "the first gateway is the endpoint)")
    sv.add_argument("--dir", help="the service's directory: a new or empty folder, which tierbench marks as its own, or "
                    "one it made before (default: ~/.cache/tierbench/services/NAME)")
    sv.add_argument("--conf-dir", action="store_true", help="status: print only the service's Hadoop conf dir")
    return sv


def _service(args):
    """The service object for args.service, from the options that apply to it (the others are ignored)."""
    from ..services.base import default_dir

    home = Path(args.dir) if args.dir else default_dir(args.service)
    # every number given is checked, whichever service it applies to: a slip is refused before anything is written.
    # The ranges of --osds and --gateways are the S3 service's topology check (which also checks what a service
    # was created with): here only that they are whole numbers
    n = {flag: bounds.option(f"--{flag.replace('_', '-')}", getattr(args, flag), bound, in_range=flag not in ("osds", "gateways"))
         for flag, bound in (("workers", bounds.SPARK_WORKERS), ("datanodes", bounds.DATANODES),
                             ("datanode_dirs", bounds.DATANODE_DIRS), ("port", bounds.PORT), ("osds", bounds.OSDS),
                             ("gateways", bounds.GATEWAYS)) if getattr(args, flag) is not None}
    if "port" in n and args.service not in ("hdfs", "s3"):
        raise UserError(f"--port: a port 1-65535 for hdfs or s3, got {n['port']} for {args.service}")
    options = {
        "yarn": {},
        "spark": {"workers": n["workers"], "worker_dirs": args.worker_dirs},
        "hdfs": {"datanodes": n["datanodes"], "dirs_per_datanode": n["datanode_dirs"], "data_dirs": args.data_dir,
                 "port": n.get("port")},
        "s3": {"port": n.get("port"), "osds": n.get("osds"), "gateways": n.get("gateways"), "ec": args.ec,
               "balancer": args.balancer},
    }
    return _services()[args.service](home, **options.get(args.service, {}))  # (a service without options: none)


def run(args) -> int:
    from ..services.base import check_dir

    svc = _service(args)
    if args.action != "up":  # (`up` claims its folder itself, before it writes anything)
        check_dir(svc.home, args.service)  # a folder of someone else's: nothing stopped, written or deleted there
    if args.action == "up":
        st = svc.up(on_phase=lambda t: print(f"{args.service}: {t}", file=sys.stderr))
        for line in svc.up_lines(st):
            print(line)
        return 0
    if args.action == "down":
        print(f"{args.service}: {'stopped' if svc.down() else 'was not running'}")
        return 0
    line, ok = svc.status_line(svc.status(), conf_dir_only=args.conf_dir)
    print(line)
    return 0 if ok else 3
