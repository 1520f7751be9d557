"""The layout holds: every workload declares every fact, nothing outside workloads/ and storage/ branches on a
workload's name or a storage type, and imports follow the data. Fast: no JVM."""

import ast
import re
import sys
from pathlib import Path

import pytest

from tierbench.storage.types import STORAGE_TYPES, StorageType
from tierbench.workloads import METRICS, WORKLOADS, IORoles, Workload

SRC = Path(__file__).resolve().parent.parent / "src" / "tierbench"
FACTS = ("name", "title", "doc", "params", "metrics", "phases", "io")


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_every_workload_declares_every_fact(name):
    wl = WORKLOADS[name]
    for fact in FACTS:
        assert fact in type(wl).__dict__ or any(fact in c.__dict__ for c in type(wl).__mro__[1:-1] if c is not Workload), \
            f"{name} does not declare `{fact}` (a Workload must: {', '.join(FACTS)})"
    assert isinstance(wl.io, IORoles)
    for m in (wl.io.input, wl.io.intermediate, wl.io.output):
        assert m is None or m in wl.metrics, f"{name}: IO role metric {m} is not one of its metrics"
    for m in wl.metrics:
        assert m in METRICS, f"{name}: metric {m} has no definition (unit, doc)"
    assert wl.engines, f"{name} runs on no engine"
    if "spark" in wl.engines:
        assert wl.spark_job and re.match(r"^[A-Z]\w+\.\w+$", wl.spark_job), f"{name}: spark_job is Class.method"
        assert (SRC / "jvm" / "java" / "tierbench" / "jobs" / f"{wl.spark_job.split('.')[0]}.java").is_file()
    if wl.hadoop_main:
        assert "hadoop" in wl.engines, f"{name} names hadoop_main without hadoop_command and hadoop_result"
    if wl.spark_job:
        assert "spark" in wl.engines, f"{name} names spark_job without spark_params"
    assert "measure" not in getattr(type(wl), "__abstractmethods__", ()), f"{name} does not measure its results"
    if wl.consumes:
        assert wl.producer in WORKLOADS and WORKLOADS[wl.producer].produces == wl.consumes
    if wl.verify_against:
        assert wl.verify_against in WORKLOADS


def test_a_workload_that_leaves_out_a_fact_is_caught():
    class Incomplete(Workload):  # no io, no phases
        name, title, doc = "incomplete", "Incomplete", "forgot its IO roles"
        params, metrics = (), ("data_mb",)
        spark_job = "TeraGen.run"

        def spark_params(self, req):
            return {}

        def measure(self, job, wall_s, produced):
            return None

    with pytest.raises(AssertionError, match="does not declare `phases`"):
        WORKLOADS["incomplete"] = Incomplete()
        try:
            test_every_workload_declares_every_fact("incomplete")
        finally:
            del WORKLOADS["incomplete"]


def test_the_registry_found_every_workload_module():
    modules = {p.stem for p in (SRC / "workloads").glob("*.py")} - {"__init__", "base", "registry"}
    declared = {type(w).__module__.rsplit(".", 1)[1] for w in WORKLOADS.values()}
    assert declared == modules


def test_the_registry_found_every_storage_type_module():
    modules = {p.stem for p in (SRC / "storage" / "kinds").glob("*.py")} - {"__init__"}
    declared = {type(t).__module__.rsplit(".", 1)[1] for t in STORAGE_TYPES.values()}
    assert declared == modules


def test_the_registry_found_every_service_module():
    from tierbench.services.registry import SERVICES

    helpers = {"__init__", "base", "registry", "ceph_files"}  # (ceph_files: the s3 service's files and names)
    modules = {p.stem for p in (SRC / "services").glob("*.py")} - helpers
    declared = {s.__module__.rsplit(".", 1)[1] for s in SERVICES.values()}
    assert declared == modules
    assert all(name == s.name for name, s in SERVICES.items())


def test_only_s3_brings_a_connector_and_it_is_built_for_each_engines_hadoop():
    for name, t in STORAGE_TYPES.items():
        for engine in t.engines:
            assert bool(t.connector(engine).fetch_jars) == (name == "s3"), (name, engine)
    s3 = STORAGE_TYPES["s3"]
    assert s3.connector("spark") != s3.connector("hadoop") and s3.connector("spark") == s3.connector("spark")


@pytest.mark.parametrize("name", sorted(STORAGE_TYPES))
def test_every_storage_type_is_one_class_that_says_what_it_supports(name):
    t = STORAGE_TYPES[name]
    assert isinstance(t, StorageType) and t.name == name and t.title and t.engines
    assert type(t).parse is not StorageType.parse


def _sources_outside(*allowed: str):
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if not rel.startswith(allowed):
            yield rel, path.read_text()


def _compared_names(text: str, names: set[str]) -> list[tuple[int, str]]:
    """Workload names a module compares with (==, !=, in) or keys a table by: what branching on a name looks like."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            operands = [k for k in node.keys if k is not None]
        else:
            continue
        for op in operands:
            for c in ast.walk(op):
                if isinstance(c, ast.Constant) and c.value in names:
                    found.append((c.lineno, c.value))
    return found


def test_no_source_outside_workloads_and_storage_compares_a_workload_name_or_storage_type():
    found = []
    for rel, text in _sources_outside("workloads/", "storage/"):
        found += [f"{rel}:{line}: branches on workload name {v!r}" for line, v in _compared_names(text, set(WORKLOADS))]
        if not rel.startswith(("services/", "cli/services.py")):  # `services up hdfs|s3` names servers, not storage types
            # ("local" is also the hadoop engine's mode and a Spark master: the other types are unambiguous)
            found += [f"{rel}:{line}: branches on storage type {v!r}"
                      for line, v in _compared_names(text, set(STORAGE_TYPES) - {"local"})]
        for n, line in enumerate(text.splitlines(), 1):
            if re.search(r"data_type\s*(==|!=|in)|startswith\(\"(hdfs|s3a|file)://", line):
                found.append(f"{rel}:{n}: storage type test: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_name_check_sees_a_comparison():
    assert sorted(_compared_names('if w.name == "terasort" or x in ("grep", "copy"):\n    pass\nT = {"sql": 1}', set(WORKLOADS))) \
        == [(1, "copy"), (1, "grep"), (1, "terasort"), (3, "sql")]


def _imports(pkg: str) -> set[str]:
    """tierbench packages and top-level modules a package (or a top-level module, "name.py") imports, at any depth,
    in every form: `from ..x import y`, `from .. import x`, `from tierbench.x import y`, `import tierbench.x`."""
    out = set()
    paths = [SRC / pkg] if pkg.endswith(".py") else (SRC / pkg).rglob("*.py")
    for path in paths:
        rel = path.relative_to(SRC).parts
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = rel[: len(rel) - node.level]  # the package the dots name
                if node.module:
                    out.add(".".join((*base, node.module)))
                else:  # `from .. import x`: the names are modules (or names) of that package
                    out.update(".".join((*base, a.name)) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tierbench."):
                out.add(node.module.removeprefix("tierbench."))
            elif isinstance(node, ast.Import):
                out.update(a.name.removeprefix("tierbench.") for a in node.names if a.name.startswith("tierbench."))
    return {t.split(".")[0].removesuffix(".py") for t in out if t}


def test_the_import_scan_sees_every_form(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "sub" / "m.py").write_text("from ... import report\nfrom ...engines import x\nimport tierbench.cli.main\n"
                                      "from tierbench.services import y\nfrom . import sibling\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert _imports("pkg") == {"report", "engines", "cli", "services", "pkg"}


@pytest.mark.parametrize("pkg, forbidden", [
    # the spec is parsed once and never from results: it reads no model, no scale model, no analysis (the loop
    # spec -> model -> analysis -> spec was a study's measurements parsed back into its spec)
    ("spec", {"engines", "services", "study", "report", "cli", "sampling", "model", "scale", "analysis"}),
    ("workloads", {"engines", "services", "study", "report", "cli", "spec"}),
    ("storage", {"engines", "services", "study", "report", "cli", "spec", "workloads"}),
    ("engines", {"study", "report", "cli", "spec"}),  # services: only as below
    ("services", {"engines", "study", "report", "cli", "spec", "workloads", "storage"}),
    ("sampling", {"engines", "services", "study", "report", "cli", "spec", "storage", "store"}),
    ("report", {"engines", "services", "study", "cli", "sampling"}),
    ("analysis", {"engines", "services", "study", "report", "cli", "model", "scale"}),
    ("store", {"engines", "services", "study", "report", "cli"}),
    ("model", {"engines", "services", "study", "report", "cli", "scale", "spec"}),  # what-ifs from stored results
    ("study", {"report", "cli", "scale", "model", "services"}),  # the scale model reaches it through hooks only
    ("scale", {"report", "cli", "engines", "services"}),  # runs studies (study/) with its hooks, reads models
])
def test_imports_follow_the_data(pkg, forbidden):
    bad = _imports(pkg) & forbidden
    assert not bad, f"{pkg}/ imports {', '.join(sorted(bad))}"


PACKAGES = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of the graph (its nodes in order, the first repeated at the end), or [] when it has none."""
    done, path = set(), []

    def visit(node: str) -> list[str]:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return []
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            found = visit(nxt)
            if found:
                return found
        path.pop()
        done.add(node)
        return []

    for node in sorted(graph):
        found = visit(node)
        if found:
            return found
    return []


def _package_graph() -> dict[str, set[str]]:
    """Package -> the other packages it imports, at module level or inside a function alike (_imports)."""
    return {pkg: (_imports(pkg) & PACKAGES) - {pkg} for pkg in PACKAGES}


def test_no_package_import_cycle():
    cycle = _cycle(_package_graph())
    assert not cycle, "package import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_sees_a_cycle_made_inside_a_function(tmp_path, monkeypatch):
    for name, text in (("a", "from ..b import x\n"), ("b", "def f():\n    from ..c import y\n"),
                       ("c", "import tierbench.a.m\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        (tmp_path / name / "m.py").write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", {"a", "b", "c"})
    assert _cycle(_package_graph()) == ["a", "b", "c", "a"]
    (tmp_path / "c" / "m.py").write_text("import tierbench.b.m\n")
    assert _cycle(_package_graph()) == ["b", "c", "b"]
    (tmp_path / "c" / "m.py").write_text("")
    assert _cycle(_package_graph()) == []


MAX_FILE_LINES, MAX_FUNCTION_LINES = 400, 60


def _too_long(path: Path) -> list[str]:
    text = path.read_text()
    found = [f"{path.name}: {len(text.splitlines())} lines"] if len(text.splitlines()) > MAX_FILE_LINES else []
    return found + [f"{path.name}:{n.lineno}: {n.name}() {n.end_lineno - n.lineno + 1} lines"
                    for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]


def test_no_python_file_over_400_lines_and_no_function_over_60():
    found = [line for path in sorted(SRC.rglob("*.py")) for line in _too_long(path)]
    assert not found, "\n".join(found)


def test_the_length_check_sees_a_long_function(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n" + "    x = 1\n" * 60 + "\n" * 340)
    assert _too_long(tmp_path / "m.py") == ["m.py: 401 lines", "m.py:1: f() 61 lines"]
BASE_MODULES = sorted(p.name for p in SRC.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
# the one package a base module may reach: fields.py asks sampling/devices.py which mount holds a directory
BASE_MAY_IMPORT = {"fields.py": {"sampling"}}


@pytest.mark.parametrize("module", BASE_MODULES)
def test_base_modules_import_no_package(module):
    """The modules beside the packages (units, errors, processes, ownership, ...) are what every layer shares: they
    import one another, never a layer (a layer imported from below would close a cycle)."""
    bad = (_imports(module) & PACKAGES) - BASE_MAY_IMPORT.get(module, set())
    assert not bad, f"{module} imports {', '.join(sorted(bad))}"


def test_only_the_spark_engine_reaches_a_service_and_only_the_standalone_cluster():
    """The spark engine restarts an embedded standalone cluster's Workers (services/spark.py) on each configuration's
    intermediate dirs, the only way standalone executors use them; no other engine starts or stops servers."""
    for path in sorted((SRC / "engines").rglob("*.py")):
        found = re.findall(r"from \.\.services(\.\w+)?|tierbench\.services(\.\w+)?", path.read_text())
        if path.relative_to(SRC).as_posix() == "engines/spark.py":
            assert found and all(m in (".spark",) for pair in found for m in pair if m), found
        else:
            assert not found, path


def test_nothing_below_the_cli_imports_it():
    for rel, text in _sources_outside("cli/", "__main__.py"):
        assert not re.search(r"from \.+cli\b|import tierbench\.cli|from tierbench\.cli", text), rel


def test_each_storage_type_gives_the_jobs_their_default_file_system(tmp_path):
    from tierbench.storage.types import StorageConfig

    hdfs = StorageConfig("h", ("hdfs://nn:8020/bench",), (str(tmp_path),), data_type="hdfs")
    assert hdfs.default_fs == "hdfs://nn:8020" and hdfs.remote
    assert hdfs.type.dataset_uris(hdfs.data, "tierbench/s", "v/r1/ds") == ["hdfs://nn:8020/bench/tierbench/s/v/r1/ds"]
    local = StorageConfig("l", (str(tmp_path / "a"), str(tmp_path / "b")), (str(tmp_path),))
    assert local.default_fs == "file:///" and not local.remote and local.local_data == local.data
    assert local.type.dataset_uris(local.data, "tierbench/s", "ds") == [f"file://{tmp_path}/a/tierbench/s/ds",
                                                                         f"file://{tmp_path}/b/tierbench/s/ds"]
    s3 = StorageConfig("s", ("s3a://bkt/p",), (str(tmp_path),), data_type="s3", store_conf={"fs.s3a.endpoint": "http://e"})
    assert s3.type.connector("spark").fetch_jars and s3.engine_settings() == {"fs.s3a.endpoint": "http://e"} and s3.local_data == ()


def test_remote_storage_types_fail_fast_in_housekeeping():
    for name in ("hdfs", "s3"):
        assert STORAGE_TYPES[name].fail_fast, name
    from tierbench.storage.remote import HadoopFs
    from tierbench.storage.types import StorageConfig

    fs = HadoopFs.for_config(StorageConfig("h", ("hdfs://nn:8020/b",), ("/tmp",), data_type="hdfs", replication=2))
    assert fs.settings["ipc.client.connect.max.retries"] == "1" and fs.settings["dfs.replication"] == "2"


def test_a_workload_that_does_not_measure_cannot_even_be_made():
    class Unmeasured(Workload):
        name = "unmeasured"

    with pytest.raises(TypeError, match="abstract method measure"):
        Unmeasured()
