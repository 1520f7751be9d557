"""The live display of a study: overall bar with ETA, the current run and its Spark stage."""

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class StudyProgress:
    def __init__(self, total_runs: int, already_done: int, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self.study_task = self.progress.add_task("study", total=total_runs, completed=already_done, unit="runs")
        self.run_task = self.progress.add_task("", total=None, unit="tasks")

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def phase(self, run_key: str, text: str, done: int | None = None, total: int | None = None) -> None:
        self.progress.update(self.run_task, description=f"{run_key}: {text}", completed=done or 0, total=total)

    def stage(self, run_key: str, event: dict) -> None:
        if not event.get("total"):  # an engine that reports no task counts (Hadoop's job client)
            self.phase(run_key, event.get("name") or "running")
            return
        self.phase(run_key, f"stage {event['stage']} ({event['done']}/{event['total']} tasks)", event["done"], event["total"])

    def finished(self, run_key: str, status: str, wall_s: float | None, note: str = "") -> None:
        mark = "[green]ok[/]" if status == "ok" else "[red]FAILED[/]"
        secs = f"{wall_s:.1f} s" if wall_s is not None else ""
        self.console.print(f"  {mark} {run_key} {secs} {note}".rstrip())
        self.progress.advance(self.study_task)

    def info(self, text: str) -> None:
        self.console.print(text)
