"""storage.NAME.setup / teardown: the user's own commands around each block of a configuration's runs.

On a cluster whose manager owns the executors' local dirs (YARN's yarn.nodemanager.local-dirs, a Worker's
SPARK_LOCAL_DIRS), only the user's own tooling (an Ansible playbook, the cluster manager's API) can point them
at a configuration's intermediate dirs. The plan interleaves configurations (repeats outermost), so a
configuration's runs come in blocks of consecutive runs: before each block tierbench runs its `setup`, after
it its `teardown` (each with `sh -c`, in the spec file's directory, with TIERBENCH_CONFIG, TIERBENCH_STUDY,
TIERBENCH_INTERMEDIATE and the rest in the environment). The engine's application is stopped first, so that
none runs on a cluster being changed under it. A failed setup fails its block's runs with the command's last
stderr line as the cause (the study goes on); what ran is in each run's details.setup and in study.json.

The commands die with tierbench: each runs in a process group of its own, which a guard kills whole when tierbench
dies (processes.py: a `kill -9` leaves no playbook running on). A teardown is owed from the moment its block's setup
starts (OWED_FILE in the results folder) until it has run; one that a `kill -9` (or a second interrupt) skipped is
run first thing on --resume (run_skipped_teardown).
"""

import json
import os
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from .. import processes, safefiles
from ..redaction import mask
from .context import RunContext
from .lifecycle import now

STUDY_KEY = "config_commands"  # study.json: every setup and teardown that ran, in order
# in the results folder while a block's teardown is owed: {"config", "variant"} (a file of its own, not study.json:
# it is tierbench's state between sessions, not a fact of the study)
OWED_FILE = ".tierbench-teardown"


def _owe(results, config: str | None = None, variant: str | None = None) -> None:
    """The teardown of (config, variant) owed from now on; none owed when config is None."""
    path = results.path / OWED_FILE
    if config is None:
        path.unlink(missing_ok=True)
    else:
        safefiles.write_text(path, json.dumps({"config": config, "variant": variant}) + "\n", what="its state")


def owed_teardown(results) -> dict | None:
    """The block whose teardown a killed session owed, if any."""
    try:
        owed = json.loads((results.path / OWED_FILE).read_text())
    except (OSError, ValueError):
        return None
    return owed if isinstance(owed, dict) else None


def _last_line(text: str) -> str:
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


class ConfigBlocks:
    """Tracks the block (of one variant: a configuration on one engine) being run, and runs its commands: the
    lifecycle's `setup` and `teardown` steps, told to the context's on_step with the block's first and last run."""

    def __init__(self, context: RunContext):
        self.context = context
        self.variant: str | None = None  # the variant whose block is open
        self.setup: dict | None = None  # what its setup did
        self.last_run: str | None = None  # the key of the block's latest run: its teardown follows that run

    def enter(self, planned, engines: dict) -> dict | None:
        """Before a run: at the start of a block, the previous block's teardown and this one's setup.
        Returns what this block's setup did (None without a setup)."""
        if planned.variant == self.variant:
            self.last_run = planned.key
            return self.setup
        self.leave(engines)
        self.variant, self.last_run = planned.variant, planned.key
        config = self.context.spec.config(planned.config)
        if config.teardown:  # owed from here on: a setup cut short may have changed half of the cluster
            _owe(self.context.results, config.name, planned.variant)
        if config.setup:
            self.context.on_step(planned.key, "setup")
            _close(engines)  # the last configuration's application must not run on what the setup changes
            self.setup = self._run("setup", config, planned.variant)
        return self.setup

    def leave(self, engines: dict) -> None:
        """After the block's last run (or when the study stops): its teardown."""
        if self.variant is None:
            return
        variant = self.context.spec.variant(self.variant)
        config = self.context.spec.config(variant.config)
        last_run, self.variant, self.setup, self.last_run = self.last_run, None, None, None
        if config.teardown:
            self.context.on_step(last_run, "teardown")
            _close(engines)
            entry = self._run("teardown", config, variant.name)
            _owe(self.context.results)
            if entry["exit_code"] != 0:
                print(f"tierbench: warning: storage.{config.name}.{entry['cause']} (see {entry['log']})", file=sys.stderr, flush=True)

    def _run(self, kind: str, config, variant: str) -> dict:
        spec, layout, results = self.context.spec, self.context.layout, self.context.results
        dirs = layout.intermediate_dirs(config, variant)
        for d in dirs:  # (inside tierbench's roots: what the command points the cluster at exists here at least)
            d.mkdir(parents=True, exist_ok=True)
        engine = spec.variant(variant).engine
        env = os.environ | {"TIERBENCH_STUDY": spec.name, "TIERBENCH_CONFIG": config.name, "TIERBENCH_VARIANT": variant,
                            "TIERBENCH_ENGINE": engine, "TIERBENCH_INTERMEDIATE": ",".join(str(d) for d in dirs)}
        source = Path(spec.source)
        cwd = source.resolve().parent if source.is_file() else Path.cwd()
        ran = results.study().get(STUDY_KEY, [])
        log = results.path / "logs" / "commands" / f"{len(ran) + 1:03d}-{kind}-{variant.replace('@', '__')}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        command = getattr(config, kind)
        self.context.progress.phase(variant, f"{kind}: sh -c {mask(command)[:100]!r}")
        started, t0 = now(), time.monotonic()
        try:
            # a group of its own, ended whole on an interrupt: the command's children must not run on into the
            # teardown (processes.py)
            proc = processes.run(["sh", "-c", getattr(config, kind)], cwd=cwd, env=env, capture_output=True, text=True,
                                 die_with_parent=signal.SIGKILL, group_dies_with_parent=True)
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except OSError as e:
            code, out, err = 127, "", f"could not run sh: {e}"
        # what the command printed of the credentials in its environment (env, echo, an error message) is
        # masked before any of it is stored or shown
        command, out, err = mask(command), mask(out), mask(err)
        entry = {"kind": kind, "config": config.name, "variant": variant, "command": command, "exit_code": code,
                 "seconds": round(time.monotonic() - t0, 3), "started_at": started,
                 "log": os.path.relpath(log, results.path)}
        log.write_text(f"# {kind} of {variant}: sh -c {command!r}\n# exit {code}\n# stdout\n{out}# stderr\n{err}")
        if code != 0:
            entry["cause"] = f"{kind} failed (exit {code}): {_last_line(err) or _last_line(out) or 'no output'}"
        results.update_study(**{STUDY_KEY: [*ran, entry]})
        self.context.progress.info(f"  {kind} of {variant}: exit {code} in {entry['seconds']:.1f} s")
        return entry


class _Said:
    """Progress as told before the study's own (run_skipped_teardown): a line on stderr."""

    def phase(self, key, text: str) -> None:
        print(f"  {text}", file=sys.stderr, flush=True)

    def info(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)


def run_skipped_teardown(spec, layout, results) -> None:
    """--resume: the teardown a killed session owed (OWED_FILE), run before anything else, so
    that the resumed runs start from the cluster as the user's commands leave it between blocks."""
    pending = owed_teardown(results)
    if not pending:
        return
    try:
        config = spec.config(pending["config"])
        spec.variant(pending["variant"])
    except (KeyError, TypeError, StopIteration):  # (no longer in the spec: nothing tierbench could run)
        config = None
    if config is None or not config.teardown:
        _owe(results)
        return
    print(f"tierbench: the last session ended before storage.{config.name}.teardown ran: running it now",
          file=sys.stderr, flush=True)
    # (what of a study's context the commands read: no runs go on, so no progress bar nor step watcher)
    blocks = ConfigBlocks(SimpleNamespace(spec=spec, layout=layout, results=results, progress=_Said(),
                                          on_step=lambda key, step: None))
    blocks.variant = pending["variant"]
    blocks.leave({})


def _close(engines: dict) -> None:
    for e in engines.values():
        e.close()
