"""Namespaced roots that tierbench owns, and the only places it writes or deletes.

For every directory a spec names, tierbench works in `<dir>/tierbench/<study>-<id>/`
(the id: the results folder's, study/identity.py, so that two studies of one spec in two folders never share a
root; `<study>` alone for a folder recorded before ids) and marks it with an owner file. It refuses a root that exists without its
mark (someone else's files), and every delete goes through `remove`, which
refuses any path outside a marked root.
"""

import json
import os
import time
from pathlib import Path

from ..errors import UserError
from ..locks import LOCK_FILE, HeldLock
from ..ownership import OwnershipError, owned_root_of, remove_owned, remove_owned_root
from ..safefiles import check_no_link, write_text
from .types import StorageConfig

OWNER_FILE = ".tierbench-owner"
NAMESPACE = "tierbench"


def _dirname(variant: str) -> str:
    # "config@engine" -> "config__engine": an '@' gets percent-encoded in URIs, which Hadoop then takes literally
    return variant.replace("@", "__")


def study_root(target_dir: str, study: str) -> Path:
    """`study`: the spec's root_name (its name and its folder's id)."""
    return Path(target_dir) / NAMESPACE / study  # the local side of StorageType.dataset_uris' namespace


def _spec_dir(root: Path) -> Path:
    """The directory the spec named, of a root (study_root's): what lies below it is checked for links, not it."""
    return root.parent.parent


def _check_namespace_is_ours(ns: Path) -> None:
    """`<dir>/tierbench/` holds tierbench's marked roots alone: anything else in it (a folder of a study's name that
    tierbench did not make, with someone's files) says the name is someone else's too, and tierbench works beside
    no one there -- its roots' names carry their folder's id, so a foreign folder of the study's own name would
    otherwise not be met."""
    if not ns.is_dir() or ns.is_symlink():
        return
    for entry in ns.iterdir():  # (a root being claimed has its lock before its mark)
        if entry.is_symlink() or not entry.is_dir() or not any((entry / f).is_file() for f in (OWNER_FILE, LOCK_FILE)):
            raise OwnershipError(f"{entry} exists but was not created by tierbench (no {OWNER_FILE}); tierbench will "
                                 f"not write in {ns}: choose another directory")


class StudyLayout:
    def __init__(self, spec):  # a spec.Spec
        self.spec = spec
        targets = []
        for c in spec.storage:
            targets.extend(c.local_data)
            targets.extend(c.intermediate)
        self.name = spec.root_name  # the roots' name: the study's and its results folder's id
        self.roots = sorted({study_root(t, self.name) for t in targets})
        # roots on other file systems (hdfs://), each with the settings to reach it
        self.namespace = f"{NAMESPACE}/{self.name}"
        self._locks: dict[Path, HeldLock] = {}
        self.remote_roots = {c.type.remote_root(c.data, self.namespace): c for c in spec.storage if c.remote}
        self._remote_checked = False  # each remote call is a JVM (1-3 s): the roots are checked once per process

    def _fs(self, root: str):
        from .remote import HadoopFs

        return HadoopFs.for_config(self.remote_roots[root])

    # -- ownership --------------------------------------------------------
    def check(self) -> None:
        """Before anything runs: every root is ours or can be made ours."""
        for root in self.roots:
            owner = root / OWNER_FILE
            for mine in (OWNER_FILE, LOCK_FILE):  # (a shared data directory: anyone may have planted a link)
                check_no_link(root / mine, _spec_dir(root), f"the data root's {mine}")
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
            _check_namespace_is_ours(ns)
        if not self._remote_checked:
            self._check_remote()  # also where a wrong endpoint, bucket or credential shows, before anything runs

    def _check_remote(self) -> None:
        self._remote_checked = True
        for root in self.remote_roots:
            fs = self._fs(root)
            if fs.exists(root) and not fs.exists(f"{root}/{OWNER_FILE}"):
                raise OwnershipError(f"{root} exists but was not created by tierbench (no {OWNER_FILE}); "
                                     "tierbench will not write there: rename the study or choose another uri")

    def claim(self) -> None:
        """Make the roots ours (marked) and lock each local one for as long as this process works in it."""
        self.check()
        for root in self.roots:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise UserError(f"cannot create {root}: {e.strerror}; choose a directory tierbench can write to") from None
            if root not in self._locks:
                self._locks[root] = HeldLock(root / LOCK_FILE, f"{root} (a data root of study {self.spec.name!r})").acquire()
            owner = root / OWNER_FILE
            if not owner.exists():
                write_text(owner, json.dumps({"study": self.spec.name, "created": time.time(), "pid": os.getpid()}),
                           "its owner mark")
        for root in self.remote_roots:  # (no lock on a remote file system: the local roots' locks guard a study)
            fs = self._fs(root)
            fs.mkdirs(root)  # (FsShell's touchz wants the parent to exist)
            fs.touch(f"{root}/{OWNER_FILE}")  # an existing marker is empty and touched again: no call to ask for it

    def check_outside(self, path: Path, what: str) -> None:
        """A folder of the user's (the results) must not lie inside a data root: a fresh study clears its roots,
        and the end of a study deletes them (a root left by keep_data = true would take the new results along)."""
        real = Path(os.path.realpath(path))
        for root in self.roots:
            if real == Path(os.path.realpath(root)) or real.is_relative_to(os.path.realpath(root)):
                raise OwnershipError(f"{what} {path} lies inside {root}, a data root of study {self.spec.name!r} that "
                                     "tierbench clears and deletes: choose a results folder outside it")

    def unlock(self) -> None:
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()

    def owns(self, path: Path) -> bool:
        """`path` lies inside one of this study's marked roots (links resolved)."""
        return owned_root_of(path, self.roots, OWNER_FILE) is not None

    def remove(self, path: Path) -> None:
        """Delete a file or tree that lies inside one of our marked roots; refuse anything else."""
        remove_owned(path, self.roots, OWNER_FILE)

    def reset(self) -> None:
        """A fresh study: clear what an earlier, unfinished study of the same name left in our roots."""
        for root in self.roots:
            if (root / OWNER_FILE).is_file():
                for child in root.iterdir():
                    if child.name not in (OWNER_FILE, LOCK_FILE):
                        self.remove(child)
        for root in self.remote_roots:
            fs = self._fs(root)
            fs.remove(root)
            fs.mkdirs(root)
            fs.touch(f"{root}/{OWNER_FILE}")

    def remove_uri(self, uri: str) -> None:
        """Delete a tree on a remote root of ours (refusing anything outside one)."""
        root = next((r for r in self.remote_roots if uri.startswith(r + "/")), None)
        if root is None:
            raise OwnershipError(f"refusing to delete {uri}: it is not inside a directory tierbench created")
        self._fs(root).remove(uri)

    def release(self, only: list[Path] | None = None) -> None:
        """End of study: delete our roots (and the namespace dir if we leave it empty)."""
        if only is None:
            for root in self.remote_roots:
                fs = self._fs(root)
                if fs.exists(f"{root}/{OWNER_FILE}"):
                    fs.remove(root)
                    fs.remove_if_empty(root.rsplit("/", 1)[0])
        for root in self.roots if only is None else only:
            if root in self._locks:
                self._locks.pop(root).release()
            remove_owned_root(root, OWNER_FILE)
            try:
                root.parent.rmdir()  # only succeeds when empty
            except OSError:
                pass

    # -- paths ------------------------------------------------------------
    # Everything of a variant (a configuration run by one engine) lives under <root>/<variant dir>/.
    def dataset_uris(self, config: StorageConfig, variant: str, repeat: int, dataset: str) -> list[str]:
        """One location per data dir (JBOD): part i of a data set lives in dir i mod n."""
        return config.type.dataset_uris(config.data, self.namespace, self._rel(variant, repeat, dataset))

    @staticmethod
    def _rel(variant: str, repeat: int, dataset: str = "") -> str:
        return f"{_dirname(variant)}/r{repeat}" + (f"/{dataset}" if dataset else "")

    def dataset_dirs(self, config: StorageConfig, variant: str, repeat: int, dataset: str) -> list[Path]:
        """The local directories of a data set (none on hdfs)."""
        return [study_root(d, self.name) / _dirname(variant) / f"r{repeat}" / dataset for d in config.local_data]

    def remove_repeat(self, config: StorageConfig, variant: str, repeat: int) -> None:
        if config.remote:
            self.remove_uri(config.type.dataset_uris(config.data, self.namespace, self._rel(variant, repeat))[0])
        for d in config.local_data:
            self.remove(study_root(d, self.name) / _dirname(variant) / f"r{repeat}")
        self.remove(self.scratch_dir(config, variant, repeat, "x").parent)

    def remove_dataset(self, config: StorageConfig, variant: str, repeat: int, dataset: str, remote: bool = True) -> None:
        if config.remote and remote:
            self.remove_uri(self.dataset_uris(config, variant, repeat, dataset)[0])
        for d in self.dataset_dirs(config, variant, repeat, dataset):
            self.remove(d)

    def scratch_dir(self, config: StorageConfig, variant: str, repeat: int, label: str) -> Path:
        """An engine's own working files for one run (Hadoop's tmp dir, TeraValidate's report): always local."""
        return study_root(config.intermediate[0], self.name) / _dirname(variant) / f"r{repeat}" / "_scratch" / label

    def intermediate_dirs(self, config: StorageConfig, variant: str) -> list[Path]:
        """The engine's local dirs: each intermediate dir split into `split` subdirectories,
        interleaved across devices so round-robin placement alternates between them."""
        out = []
        for k in range(config.split):
            for d in config.intermediate:
                out.append(study_root(d, self.name) / _dirname(variant) / "intermediate" / f"dir{k}")
        return out
