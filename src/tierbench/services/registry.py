"""The servers `tierbench services` starts: every module of this package that defines SERVICE (a class with its
`name`, made with its directory and options, with up/down/status and what they print) is discovered, listed in
its module's ORDER. Adding a service is adding such a module (and its options in cli/services.py)."""

import importlib
import pkgutil


def _discover() -> dict[str, type]:
    modules = []
    for info in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        mod = importlib.import_module(f"{__package__}.{info.name}")
        if isinstance(getattr(mod, "SERVICE", None), type):
            modules.append(mod)
    found: dict[str, type] = {}
    for mod in sorted(modules, key=lambda m: (getattr(m, "ORDER", 1000), m.__name__)):
        if mod.SERVICE.name in found:
            raise ValueError(f"service {mod.SERVICE.name} is defined twice ({mod.__name__})")
        found[mod.SERVICE.name] = mod.SERVICE
    return found


SERVICES: dict[str, type] = _discover()
