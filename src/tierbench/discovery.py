"""One rule for what the registries find (workloads, storage types, services): every module of a package that
declares a name (WORKLOADS, STORAGE_TYPE, SERVICE) is imported and listed in its module's ORDER, then by name, and a
name declared twice is refused. Adding one is adding a module; nothing else lists them."""

import importlib
import pkgutil


def declared(package: str, attr: str, accept) -> list[tuple[str, object]]:
    """(module name, its `attr`) for every module of `package` whose `attr` passes `accept`, in ORDER."""
    modules = [importlib.import_module(f"{package}.{info.name}")
               for info in pkgutil.iter_modules(importlib.import_module(package).__path__)]
    modules = [m for m in modules if accept(getattr(m, attr, None))]
    return [(m.__name__, getattr(m, attr)) for m in sorted(modules, key=lambda m: (getattr(m, "ORDER", 1000), m.__name__))]


def by_name(kind: str, items) -> dict:
    """name -> thing, from (module name, thing) pairs; a name two modules declare is refused."""
    found: dict = {}
    for module, thing in items:
        if thing.name in found:
            raise ValueError(f"{kind} {thing.name} is defined twice ({module})")
        found[thing.name] = thing
    return found
