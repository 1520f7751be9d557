"""A VM's free page reporting (tierbench/host_memory.py): read from the kernel, turned off for a block and set back
as it was, on this machine's own sysfs."""

import os
from pathlib import Path

import pytest

from tierbench import host_memory


def test_the_largest_free_block_order_is_the_kernels():
    assert host_memory.max_order() == len(Path("/proc/buddyinfo").read_text().splitlines()[0].split()) - 5


@pytest.fixture
def reporting_here():
    """Free page reporting on for the test (at the pageblock order, 9, where the e2e layer turned it off: conftest),
    and as it was after."""
    if not host_memory.balloon_reports_free_pages():
        pytest.skip("this machine has no virtio balloon reporting free pages: nothing to turn off")
    if os.geteuid() != 0:
        pytest.skip("not root: page_reporting_order cannot be written")
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
