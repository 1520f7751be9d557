"""The Spark engine's applications between a configuration's turns: kept idle within keep_alive_memory, least
recently used stopped first; one at a time on a cluster master. The policy is tierbench's own, so these fast
tests give it a stand-in for the Spark application process (`StandInApp`, named so: it starts no JVM); the real
applications are in test_study.py (started 2, resumed 2) and bench/bench_overhead.py (both ways, measured)."""

from pathlib import Path

import pytest

from tierbench.engines import spark
from tierbench.storage import storage_type
from tierbench.spec.schema import EngineSpec

GB = 1 << 30


class StandInApp:
    """Stands in for spark.SparkApp: the resident memory it is told, and what was asked of it."""
    rss = GB
    started: list = []

    def __init__(self, conf, log_path, env=None, confine=None, uncovered=None):
        self.conf, self.spark_version, self.full_conf = conf, "4.3.0", dict(conf)
        self.variant = conf["spark.app.name"].split()[-1]
        self.stopped = self.idled = False
        StandInApp.started.append(self)

    def rss_bytes(self):
        return self.rss

    def idle(self):
        self.idled = True

    def alive(self):
        return not self.stopped

    def stop(self):
        self.stopped = True


@pytest.fixture
def engine(monkeypatch, tmp_path):
    monkeypatch.setattr(spark, "SparkApp", StandInApp)
    monkeypatch.setattr(spark, "jobs_jar", lambda spark=None: Path("/nonexistent/tierbench-jobs.jar"))
    StandInApp.started = []

    def make(master="local[2]", keep_alive=int(2.5 * GB)):
        return spark.SparkEngine(EngineSpec(master=master, keep_alive_memory=keep_alive), "s", tmp_path)
    return make


class Config:  # the part of a storage configuration that open() reads
    type = storage_type("local")
    local_data = ()

    @staticmethod
    def engine_settings():
        return {}


def _turns(engine, variants, tmp_path):
    phases = []
    fresh = [engine.open(v, Config, [tmp_path / v], phases.append) for v in variants]
    return fresh, phases


def test_idle_applications_are_resumed_and_the_least_recently_used_stopped_beyond_the_budget(engine, tmp_path):
    e = engine()  # room for two idle applications of 1 GB each
    fresh, phases = _turns(e, ["a", "b", "c", "a", "b", "c"], tmp_path)
    assert fresh == [True, True, True, False, False, False]
    assert (e.apps_started, e.apps_resumed) == (3, 3) and len(StandInApp.started) == 3
    assert all(app.idled and not app.stopped for app in StandInApp.started)
    assert e.conf["spark.app.name"].endswith(" c")  # the application in use is the variant's own

    StandInApp.rss = 2 * GB  # grown: only one fits now; going to "d" stops the least recently used ("a")
    fresh, phases = _turns(e, ["d"], tmp_path)
    assert fresh == [True] and any("stopping the idle Spark application of a" in p for p in phases)
    assert [a.variant for a in StandInApp.started if a.stopped] == ["a", "b"]
    e.close()
    assert all(a.stopped for a in StandInApp.started)


def test_a_dead_idle_application_is_replaced(engine, tmp_path):
    e = engine()
    _turns(e, ["a", "b"], tmp_path)
    StandInApp.started[0].stopped = True  # its JVM died while idle
    fresh, phases = _turns(e, ["a"], tmp_path)
    assert fresh == [True] and any("had died" in p for p in phases) and len(StandInApp.started) == 3


@pytest.mark.parametrize("master,keep_alive", [("local[2]", 0), ("spark://127.0.0.1:1", 8 * GB)])
def test_one_application_at_a_time_when_asked_or_on_a_cluster(engine, tmp_path, monkeypatch, master, keep_alive):
    monkeypatch.setattr("tierbench.services.spark.embedded_standalone", lambda m: None)
    e = engine(master, keep_alive)
    fresh, _ = _turns(e, ["a", "b", "a"], tmp_path)
    assert fresh == [True, True, True] and e.keep_alive_memory == 0
    assert [a.stopped for a in StandInApp.started] == [True, True, False]
