"""tierbench's command line: the top-level parser, one module per verb, and how errors end a command.

A verb is a module here with `add_parser(subparsers)` (its sub-parser) and
`run(args) -> int` (parse, call the library, print); add it to VERBS.
"""

import argparse
import signal
import sys

from .. import __version__, processes
from ..errors import UserError
from . import advise, check, compare, cost, emulate, predict, probe, quickstart, report, results, run, services, workloads

VERBS = (run, quickstart, report, results, compare, workloads, probe, check, predict, advise, services, emulate, cost)  # in the order --help lists them

EPILOG = """\
examples:
  tierbench quickstart                         the SanDisk TeraSort study scaled to this machine, with a report
  tierbench run examples/quick.toml            run your own study (results in ./tierbench-results/<name>)
  tierbench run study.toml --resume            continue a study that was interrupted
  tierbench report tierbench-results/quick     re-render the report from stored results, offline
  tierbench results tierbench-results/quick --format csv > runs.csv
  tierbench compare old-cluster new-cluster --fail-if-slower 5%   same spec, two clusters: faster/slower per job
  tierbench workloads                          what can run, with parameters and metrics
  tierbench probe study.toml                   measure the study's devices with fio (ceilings for the report)
  tierbench check study.toml                   the studies' OS advice (swappiness, noatime, ...) on every node
  tierbench predict tierbench-results/quick --hardware sandisk-all-ssd --size 1TB
                                               runtimes and $/job on hardware you don't own (what-if model)
  tierbench advise tierbench-results/quick     which tier for data and shuffle, SSD split and size, with numbers
  tierbench cost --runtime-s 11589 --price-usd 37561    $/job over 3 years, without running anything
  tierbench services up yarn                   an embedded YARN on 127.0.0.1 for the hadoop engine
  tierbench emulate up hdd1 --profile hdd      an HDD-shaped device on this machine (root), for a study's dirs

docs: README.md, docs/spec.md (study spec, engines, cost), docs/results.md (record schema, metrics, IO profile),
      docs/model.md and docs/hardware.md (the what-if model, hardware descriptions, the drive catalog)
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tierbench",
        description="Which storage should your Spark/Hadoop cluster run on, and what does each choice cost per job? "
                    "tierbench runs the standard storage benchmarks (TestDFSIO, TeraGen/TeraSort/TeraValidate) on real "
                    "engines (Spark, or Hadoop's own jars locally or on YARN) against each storage configuration of a "
                    "study, repeats them, samples the devices, records every run and writes a report with statistics, "
                    "IO profiles, cost per job and charts.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tierbench {__version__}")
    sub = p.add_subparsers(dest="verb", metavar="COMMAND")
    for verb in VERBS:
        verb.add_parser(sub).set_defaults(run_verb=verb.run)
    return p


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stopped from outside, handled as Ctrl-C is (finished runs are saved)."""


def _stop_on(signum, frame):
    raise Stopped(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop_on)
    try:
        if args.verb is None:
            parser.print_help()
            return 2
        return args.run_verb(args)
    except UserError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `tierbench workloads | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as e:
        how = f" by {e.args[0]}" if isinstance(e, Stopped) else ""
        print(f"\ntierbench: interrupted{how}; finished runs are saved: continue with --resume", file=sys.stderr)
        return 128 + (signal.Signals[e.args[0]].value if isinstance(e, Stopped) else signal.SIGINT.value)
    finally:
        processes.end_all()  # no child outlives tierbench (a group left by an interrupt mid-way)


if __name__ == "__main__":
    sys.exit(main())
