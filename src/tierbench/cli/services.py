"""tierbench services up|down|status NAME: real local servers on 127.0.0.1.

What each service prints is its own (`up_lines`, `status_line`); this module
maps the options to the service's constructor and prints.
"""

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


DESCRIPTION = """\
Real servers for trying tierbench on one machine, bound to 127.0.0.1, each in its own folder with its
configuration, logs and pid files. `up` prints how a spec uses the service and how to stop it.
  yarn   ResourceManager + NodeManager: for a hadoop engine in mode = "yarn"
  spark  Master + Workers: for a spark engine's master = "spark://127.0.0.1:PORT"
  hdfs   NameNode + DataNodes: for data = { type = "hdfs", ... }
  s3     Ceph (mon, mgr, OSDs, radosgw; HAProxy if asked), an S3 user and bucket:
         for data = { type = "s3", ... }; installs Ceph from Debian when root
Each service's options are below; the others' are ignored. More: docs/services.md."""

EPILOG = """\
examples:
  tierbench services up hdfs --datanodes 2 --port 8020   # then hdfs://127.0.0.1:8020/tb
  tierbench services status yarn --conf-dir              # the HADOOP_CONF_DIR to use
  tierbench services up s3 --osds 5 --ec 3+2 --gateways 2 --balancer haproxy"""


def add_parser(subparsers):
    sv = subparsers.add_parser("services", help="start/stop local HDFS, S3, YARN or Spark on 127.0.0.1",
                               usage="%(prog)s {up,down,status} SERVICE [options]",
                               description=DESCRIPTION, epilog=EPILOG)
    sv.add_argument("action", choices=("up", "down", "status"), help="up: start it; down: stop it; status: say "
                    "whether it is ready (exit status 3: not)")
    sv.add_argument("service", choices=_ServiceNames(), help="the SERVICE")
    every = sv.add_argument_group("every service (--port: hdfs and s3)")
    every.add_argument("--dir", help="the service's folder: a new or empty one, which tierbench marks as its own, "
                       "or one it made before (default: ~/.cache/tierbench/services/NAME)")
    every.add_argument("--conf-dir", action="store_true", help="status: print only the service's Hadoop conf dir")
    # numbers are read by bounds.option (one line for "abc", a sane range each), not argparse's int
    every.add_argument("--port", help="hdfs: the NameNode's RPC port; s3: the endpoint's (HAProxy's or radosgw's); "
                       "a fixed address for specs, e.g. 8020 for hdfs://127.0.0.1:8020 (default: a free port)")
    hdfs = sv.add_argument_group("hdfs options")
    hdfs.add_argument("--datanodes", metavar="N", default=2, help=f"DataNodes (default: 2; at most "
                      f"{bounds.DATANODES.high})")
    hdfs.add_argument("--datanode-dirs", metavar="N", default=1, help="data dirs per DataNode (default: 1; at most "
                      f"{bounds.DATANODE_DIRS.high})")
    hdfs.add_argument("--data-dir", action="append", metavar="DIR", help="where DataNodes keep their blocks "
                      "(repeat for several devices; DataNode i uses the i-th, round-robin; default: inside --dir)")
    spark = sv.add_argument_group("spark options")
    spark.add_argument("--workers", metavar="N", default=2, help="Workers, 1 core and 1 GB of memory each; Worker i "
                       f"listens on 127.0.0.(i+1) (default: 2; at most {bounds.SPARK_WORKERS.high})")
    spark.add_argument("--worker-dirs", nargs="+", metavar="DIR", help="where Workers keep shuffle and spill data "
                       "when no study has put them on its own dirs (Worker i in the i-th DIR, round-robin; default: "
                       "inside --dir)")
    s3 = sv.add_argument_group("s3 options")
    s3.add_argument("--osds", metavar="N", help="OSDs, each BlueStore on its own sparse file (default: 1; at most "
                    f"{bounds.OSDS.high}; a service keeps what it was created with)")
    s3.add_argument("--gateways", metavar="N", help=f"radosgw instances (default: 1; at most {bounds.GATEWAYS.high})")
    s3.add_argument("--ec", metavar="K+M", help="an erasure-coded data pool of K data and M coding chunks, e.g. 3+2 "
                    "(needs --osds >= K+M; default: replicated pools of size min(3, OSDs))")
    s3.add_argument("--balancer", choices=("haproxy", "none"), help="haproxy: HAProxy (round robin) in front of the "
                    "gateways, on --port, with an admin socket for a study's `gateways` sweep (default: none: the "
                    "first gateway is the endpoint)")
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
