"""Namespaced roots that tierbench owns, and the only places it writes or deletes.

For every directory a spec names, tierbench works in `<dir>/tierbench/<study>/`
and marks it with an owner file. It refuses a root that exists without its
mark (someone else's files), and every delete goes through `remove`, which
refuses any path outside a marked root.
"""

import json
import os
import shutil
import time
from pathlib import Path

from ..errors import UserError
from ..spec import Spec, StorageConfig

OWNER_FILE = ".tierbench-owner"
NAMESPACE = "tierbench"


class OwnershipError(UserError):
    pass


def _rmtree(path: Path, attempts: int = 5) -> None:
    """rmtree that tolerates a process still tidying the same tree (Spark's JVM deleting its block dirs)."""
    for i in range(attempts):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            if i == attempts - 1:
                raise
            time.sleep(0.5)


def _dirname(variant: str) -> str:
    # "config@engine" -> "config__engine": an '@' gets percent-encoded in URIs, which Hadoop then takes literally
    return variant.replace("@", "__")


def to_uri(path: Path) -> str:
    """A local path as Hadoop wants it: file:// + the path, unencoded (Hadoop's Path encodes it itself)."""
    return "file://" + str(path)


def study_root(target_dir: str, study: str) -> Path:
    return Path(target_dir) / NAMESPACE / study


class StudyLayout:
    def __init__(self, spec: Spec):
        self.spec = spec
        targets = []
        for c in spec.storage:
            targets.extend(c.data)
            targets.extend(c.intermediate)
        self.roots = sorted({study_root(t, spec.name) for t in targets})

    # -- ownership --------------------------------------------------------
    def check(self) -> None:
        """Before anything runs: every root is ours or can be made ours."""
        for root in self.roots:
            owner = root / OWNER_FILE
            if root.exists() and not owner.is_file():
                raise OwnershipError(
                    f"{root} exists but was not created by tierbench (no {OWNER_FILE}); "
                    "tierbench will not write there: rename the study or choose another directory"
                )
            if owner.is_file():
                try:
                    study = json.loads(owner.read_text()).get("study")
                except (OSError, ValueError):
                    study = None
                if study != self.spec.name:
                    raise OwnershipError(f"{root} belongs to study {study!r}, not {self.spec.name!r}; tierbench will not write there")
            ns = root.parent
            if ns.exists() and not ns.is_dir():
                raise OwnershipError(f"{ns} exists and is not a directory")

    def claim(self) -> None:
        self.check()
        for root in self.roots:
            root.mkdir(parents=True, exist_ok=True)
            owner = root / OWNER_FILE
            if not owner.exists():
                owner.write_text(json.dumps({"study": self.spec.name, "created": time.time(), "pid": os.getpid()}))

    def _owned_root_of(self, path: Path) -> Path | None:
        path = Path(os.path.normpath(path))
        for root in self.roots:
            if path != root and path.is_relative_to(root) and (root / OWNER_FILE).is_file():
                return root
        return None

    def remove(self, path: Path) -> None:
        """Delete a file or tree that lies inside one of our marked roots; refuse anything else."""
        if self._owned_root_of(path) is None:
            raise OwnershipError(f"refusing to delete {path}: it is not inside a directory tierbench created")
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.exists():
            _rmtree(path)

    def release(self, only: list[Path] | None = None) -> None:
        """End of study: delete our roots (and the namespace dir if we leave it empty)."""
        for root in self.roots if only is None else only:
            if (root / OWNER_FILE).is_file():
                _rmtree(root)
            try:
                root.parent.rmdir()  # only succeeds when empty
            except OSError:
                pass

    # -- paths ------------------------------------------------------------
    # Everything of a variant (a configuration run by one engine) lives under <root>/<variant dir>/.
    def dataset_dirs(self, config: StorageConfig, variant: str, repeat: int, dataset: str) -> list[Path]:
        """One directory per data dir (JBOD): part i of a data set lives in dir i mod n."""
        return [study_root(d, self.spec.name) / _dirname(variant) / f"r{repeat}" / dataset for d in config.data]

    def repeat_dirs(self, config: StorageConfig, variant: str, repeat: int) -> list[Path]:
        return [study_root(d, self.spec.name) / _dirname(variant) / f"r{repeat}" for d in config.data]

    def scratch_dir(self, config: StorageConfig, variant: str, repeat: int, label: str) -> Path:
        """An engine's own working files for one run (Hadoop's tmp dir, TeraValidate's report)."""
        return study_root(config.data[0], self.spec.name) / _dirname(variant) / f"r{repeat}" / "_scratch" / label

    def intermediate_dirs(self, config: StorageConfig, variant: str) -> list[Path]:
        """The engine's local dirs: each intermediate dir split into `split` subdirectories,
        interleaved across devices so round-robin placement alternates between them."""
        out = []
        for k in range(config.split):
            for d in config.intermediate:
                out.append(study_root(d, self.spec.name) / _dirname(variant) / "intermediate" / f"dir{k}")
        return out
