"""The run hooks a study stacks (study/hooks.py): a scale model's page cache budget on the engines' processes, its
emulated drives' reads and writes sharing one drive's time, and its drives following this machine's pace. Entered
in that order, left in the reverse: the pace follower rescales the shared-time controller's limits."""

import contextlib
import sys

from ..study.hooks import RunHook, StudyState


class PageCacheBudget:
    """A scale model's page cache budget on the engines' processes while the study runs (memory_budget.py);
    study.json says whether it was enforced."""

    def __init__(self, budget_bytes: int | None):
        self.bytes = budget_bytes

    @contextlib.contextmanager
    def __call__(self, state: StudyState):
        if not self.bytes:
            yield None
            return
        from .memory_budget import MemoryBudget, can_budget

        why = can_budget()
        if why:
            print(f"tierbench: warning: {why}: the scale model's page cache is not bounded", file=sys.stderr, flush=True)
            state.results.update_study(memory_budget={"bytes": self.bytes, "enforced": False, "why": why})
            yield None
            return
        with MemoryBudget(state.spec.name, self.bytes) as b:
            state.results.update_study(memory_budget={"bytes": self.bytes, "enforced": True, "group": str(b.group)})
            hook = RunHook()
            hook.memory_budget = b
            yield hook


class SharedTimeHook(RunHook):
    """The study's emulated devices' reads and writes held to one drive's time together while the runs go."""

    def __init__(self, shared):
        self.shared = shared


@contextlib.contextmanager
def shared_time(state: StudyState):
    from ..storage.emulation import set_limits
    from .shared_time import SharedTime

    with SharedTime({loop: (e["major_minor"], e["limits"]) for loop, e in state.emulated.items()}, set_limits) as s:
        yield SharedTimeHook(s)


class PaceHook(RunHook):
    """The devices at the k each run goes at (pace_follow.py)."""

    def __init__(self, follower):
        self.pace = follower

    def before(self, planned) -> None:
        self.pace.before(planned.label)

    def after(self, record: dict) -> str | None:
        return self.pace.after(record)


@contextlib.contextmanager
def pace_following(state: StudyState):
    from .pace_follow import PaceFollower

    shared = next(h.shared for h in state.entered if isinstance(h, SharedTimeHook))
    follower = PaceFollower.for_study(state.spec, shared, list(state.records))
    yield PaceHook(follower) if follower is not None else None


def study_hooks(spec, page_cache_budget: int | None = None) -> tuple:
    """A study's hooks: the page cache budget (the scale model's, or `page_cache_budget`: a calibration's, run in
    its study's conditions), shared time, pace following."""
    budget = page_cache_budget or (spec.scale.page_cache_bytes if spec.scale else None)
    return PageCacheBudget(budget), shared_time, pace_following


def study_runner(spec, out_dir, command_line, page_cache_budget: int | None = None, **options):
    """A StudyRunner with the scale model's hooks stacked (study/runner.py's `options` as they are)."""
    from ..study.runner import StudyRunner

    return StudyRunner(spec, out_dir, command_line, hooks=study_hooks(spec, page_cache_budget), **options)
