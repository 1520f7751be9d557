"""A Spark application whose JVM does not start in time, or cannot start (its gateway never comes), is one line with
what to try, never a traceback (issue 57: a slow guest's Spark start ended in a Python traceback). Fast: the JVM never
starts (the time limit comes first, or there is no java to start)."""

import os
import sys

import pytest

from tierbench.engines.base import EngineError
from tierbench.engines.spark_app import START_TIMEOUT_ENV, SparkApp, SparkStartError
from tierbench.errors import UserError


def test_a_start_that_does_not_come_in_time_is_one_line_with_what_to_try(tmp_path, monkeypatch):
    monkeypatch.setenv(START_TIMEOUT_ENV, "0.01")
    with pytest.raises(SparkStartError) as e:
        SparkApp({}, tmp_path / "spark.log", env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert isinstance(e.value, EngineError) and isinstance(e.value, UserError)  # the study's failure; the CLI's line
    text = str(e.value)
    assert "did not start within 0.01 s" in text and f"{START_TIMEOUT_ENV}=SECONDS" in text and "\n" not in text


def test_a_jvm_that_cannot_start_is_one_line_with_what_to_try(tmp_path):
    # no java on the PATH and a JAVA_HOME that holds none: pyspark's gateway never comes (as a refused port's)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "JAVA_HOME": str(tmp_path / "no-java"),
           "PATH": "/nonexistent", "SPARK_HOME": os.environ.get("SPARK_HOME", "")}
    env = {k: v for k, v in env.items() if v}
    with pytest.raises(SparkStartError) as e:
        SparkApp({}, tmp_path / "spark.log", env=env)
    text = str(e.value)
    assert text.startswith("the Spark application did not start: the Spark application stopped"), text
    assert f"{START_TIMEOUT_ENV}=SECONDS" in text and "\n" not in text


def test_the_cli_prints_a_start_failure_as_one_line(capsys, monkeypatch):
    from tierbench.cli import main as cli
    from tierbench.engines.spark_app import start_failed

    def fails(args):
        raise start_failed("the Spark application did not start within 1 s")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(fails))
    assert cli.main(["x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tierbench: error: the Spark application did not start"), err


def _parser_running(verb):
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("verb")
    p.set_defaults(run_verb=verb)
    return p
