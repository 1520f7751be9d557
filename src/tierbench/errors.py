"""Errors that are the user's to fix. The CLI prints them as one line and exits 2."""


class UserError(Exception):
    """A mistake in the user's input: the message names the file, field or value and what would be accepted."""


class SpecError(UserError):
    """A study spec that cannot run; raised before anything runs."""

    def __init__(self, source: str, field: str, problem: str):
        self.source, self.field, self.problem = source, field, problem
        super().__init__(f"{source}: {field}: {problem}" if field else f"{source}: {problem}")
