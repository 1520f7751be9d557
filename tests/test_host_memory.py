"""A VM's free page reporting (tierbench/host_memory.py): read from the kernel, turned off for a block and set back
as it was, on this machine's own sysfs."""

import os
from pathlib import Path

import pytest

from tierbench.study import host_memory


def test_the_largest_free_block_order_is_the_kernels():
    assert host_memory.max_order() == len(Path("/proc/buddyinfo").read_text().splitlines()[0].split()) - 5


@pytest.fixture
def reporting_here():
    """Free page reporting on for the test (at the pageblock order, 9, where the e2e layer turned it off: conftest),
    and as it was after."""
    if not host_memory.balloon_reports_free_pages():
        pytest.skip("this machine has no virtio balloon reporting free pages (not a VM of that kind): there is no kernel "
                    "setting to turn off, so nothing to test")
    if os.geteuid() != 0:
        pytest.skip("not root: the kernel refuses writes to page_reporting_order (a study asking for it off warns and leaves it on)")
    saved = host_memory.ORDER.read_text()
    if not host_memory.reporting_on():
        host_memory.ORDER.write_text(str(min(9, host_memory.max_order())))
    yield host_memory.ORDER.read_text()
    host_memory.ORDER.write_text(saved)


def test_reporting_is_off_inside_the_block_and_as_it_was_after(reporting_here):
    with host_memory.freed_pages_kept(touch=False) as done:
        assert not host_memory.reporting_on()
        assert int(host_memory.ORDER.read_text()) == host_memory.max_order() + 1
        assert f"page_reporting_order {reporting_here.strip()} -> " in done
    assert host_memory.ORDER.read_text() == reporting_here and host_memory.reporting_on()


def test_set_back_even_when_the_block_fails(reporting_here):
    with pytest.raises(RuntimeError), host_memory.freed_pages_kept(touch=False):
        raise RuntimeError("a study failed")
    assert host_memory.ORDER.read_text() == reporting_here


def test_a_second_block_inside_the_first_changes_nothing(reporting_here):
    with host_memory.freed_pages_kept(touch=False):
        inner = host_memory.ORDER.read_text()
        with host_memory.freed_pages_kept(touch=False) as done:
            assert done == ""
        assert host_memory.ORDER.read_text() == inner


def test_first_touch_is_a_rate():
    assert host_memory.first_touch_gb_s(0.25) > 0.05


# -- a study's free_page_reporting = "off" ------------------------------------------------------------------------

def _spec(d: Path, reporting: str):
    import tomllib

    from fixtures.capture_job_results import TERA_TOML
    from tierbench.spec import parse_spec

    order_file = host_memory.ORDER
    return parse_spec(tomllib.loads(f"""
name = "vm"
repeats = 1
drop_caches = "never"
free_page_reporting = "{reporting}"
[sampling]
enabled = false
[storage.a]
data = ["{d}/data"]
setup = 'touch {d}/seen; cat {order_file} >> {d}/seen 2>/dev/null; true'
""" + TERA_TOML), "vm.toml", d)


def test_a_bad_value_names_the_field_and_what_is_accepted(tmp_path):
    from tierbench.errors import SpecError

    with pytest.raises(SpecError) as e:
        _spec(tmp_path, "sometimes")
    assert e.value.field == "free_page_reporting" and '"off"' in e.value.problem and '"as-is"' in e.value.problem


def _run_study(d: Path, reporting: str):
    """A FakeEngine study (recorded real job results, no JVM); its results."""
    import json

    from tierbench.engines.fake import FakeEngine
    from tierbench.study.runner import StudyRunner
    from tierbench.store import ResultsDir

    jobs = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
    StudyRunner(_spec(d, reporting), d / "r", ["t"], engines={"spark": FakeEngine(jobs)}).run()
    return ResultsDir(d / "r")


@pytest.mark.e2e  # no JVM, but the study takes the VM's free memory once (4-55 s)
def test_a_study_asking_for_it_off_runs_with_it_off_and_sets_it_back(tmp_path, reporting_here):
    results = _run_study(tmp_path, "off")
    # the configuration's setup command, run by the study, saw reporting off; after the study it is as it was
    assert (tmp_path / "seen").read_text().split() == [str(host_memory.max_order() + 1)]
    assert host_memory.ORDER.read_text() == reporting_here
    assert f"page_reporting_order {reporting_here.strip()} -> " in results.study()["free_page_reporting"]
    assert all(r["status"] == "ok" for r in results.records())


def test_as_is_leaves_the_machine_alone(tmp_path):
    """On any machine: what the study's setup command read is what was there before and after (nothing where the
    kernel has no page_reporting module), and the study records nothing of it."""
    before = host_memory.ORDER.read_text() if host_memory.ORDER.exists() else ""
    results = _run_study(tmp_path, "as-is")
    assert (tmp_path / "seen").read_text() == before
    assert (host_memory.ORDER.read_text() if host_memory.ORDER.exists() else "") == before
    assert "free_page_reporting" not in results.study() and all(r["status"] == "ok" for r in results.records())
