"""tierbench's command line: the top-level parser, one module per verb, and how errors end a command.

A verb is a module here with `add_parser(subparsers)` (its sub-parser) and
`run(args) -> int` (parse, call the library, print); add it to VERBS.
"""

import argparse
import signal
import sys

from .. import __version__, processes
from ..errors import UserError
from . import (advise, check, compare, cost, emulate, help_format, predict, probe, quickstart, report, results, run,
               services, workloads)

VERBS = (run, quickstart, report, results, compare, workloads, probe, check, predict, advise, services, emulate, cost)  # in the order --help lists them

DESCRIPTION = """\
Which storage should your Spark/Hadoop cluster run on, and what does each choice cost per job? tierbench runs
the standard storage benchmarks (TestDFSIO, TeraGen, TeraSort, SQL queries) on real engines (Spark, or Hadoop's
own jars locally or on YARN) against each storage configuration of a study, repeats them, records every run and
writes a report: runtimes with their statistics, IO profiles, $/job and charts.

Start with `tierbench quickstart`, then your own study with `tierbench run SPEC`. Each command's options and
examples: tierbench COMMAND --help."""

EPILOG = """\
examples:
  tierbench quickstart                                    # HDD vs. SSD, about 6 minutes
  tierbench run examples/quick.toml --out results/quick   # your own study: a spec file
  tierbench predict tierbench-results/quickstart --hardware sandisk-all-ssd --size 1TB

docs: README.md, docs/README.md (every page), docs/cli.md (every command)"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tierbench", description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("--version", action="version", version=f"tierbench {__version__}")
    sub = p.add_subparsers(dest="verb", metavar="COMMAND")
    for verb in VERBS:
        verb.add_parser(sub).set_defaults(run_verb=verb.run)
    help_format.use_everywhere(p)  # every --help at most 100 columns, whatever the terminal
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
