"""Run hooks: what a study stacks around its runs without the runner knowing what they are. A hook is a context
manager factory, entered once the study is prepared and held while its runs go; what it yields (a RunHook, or None)
is told before and after each run. The scale model's page cache budget, the emulated drives' shared time and pace
following are hooks (scale/hooks.py builds them); the runner knows only this protocol."""

import contextlib
from dataclasses import dataclass, field
from typing import Callable, ContextManager


class RunHook:
    """Told of each run; the default does nothing. `memory_budget`: a page cache budget the engines' processes join
    and each run records (scale/memory_budget.py MemoryBudget: join, not_covering, start_run, end_run); `pace`: what
    each run records of the pace its drives went at (`current()`)."""
    memory_budget = None
    pace = None

    def before(self, planned) -> None:
        """A run is next (before its configuration's setup)."""

    def after(self, record: dict) -> str | None:
        """A run was recorded; a line to say, or None."""
        return None


@dataclass(frozen=True)
class StudyState:
    """What a hook is given as it is entered: the prepared study."""
    spec: object
    results: object
    emulated: dict  # loop device name -> the emulated device's facts (study/devices.py)
    records: tuple = ()  # the runs recorded before this session (a resumed study)
    entered: tuple = field(default=())  # the RunHooks the hooks before this one yielded


Hook = Callable[[StudyState], ContextManager]


@contextlib.contextmanager
def stacked(hooks, state: StudyState):
    """Every hook entered in order (each sees those before it), left in the reverse order; the RunHooks they yield."""
    with contextlib.ExitStack() as stack:
        entered: list[RunHook] = []
        for hook in hooks:
            run_hook = stack.enter_context(hook(StudyState(state.spec, state.results, state.emulated, state.records,
                                                           tuple(entered))))
            if run_hook is not None:
                entered.append(run_hook)
        yield entered


def first(entered, attribute: str):
    """The first entered hook's `attribute` that is set (memory_budget, pace), or None."""
    return next((value for h in entered if (value := getattr(h, attribute, None)) is not None), None)
