"""The servers `tierbench services` starts: every module of this package that defines SERVICE (a class with its
`name`, made with its directory and options, with up/down/status and what they print) is discovered, listed in
its module's ORDER. Adding a service is adding such a module (and its options in cli/services.py)."""

from ..discovery import by_name, declared


def _discover() -> dict[str, type]:
    return by_name("service", declared(__package__, "SERVICE", lambda s: isinstance(s, type)))


SERVICES: dict[str, type] = _discover()
