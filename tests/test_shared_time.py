"""An emulated drive's reads and writes share one drive's time while a study runs (scale/shared_time.py): the
control law on simulated demands, the limits it writes, and the device's full limits before and after. Fast: no
device (a real device's reads and writes at once: tests/test_emulation.py)."""

import pytest
from hypothesis import given, settings, strategies as st

from tierbench.scale.shared_time import FLOOR, OVER, SharedTime, Shares, shared_limits, time_used

FULL = {"read_mb_s": 100.0, "write_mb_s": 50.0, "read_iops": 200.0, "write_iops": 200.0}
MiB = 1 << 20


def _run(read_demand: float, write_demand: float, ticks: int = 200) -> tuple[float, float]:
    """Mean shares of the drive's time the reads and writes take over the last half of `ticks`, each direction
    taking what it wants (a fraction of its full rate) up to the share it is allowed."""
    shares, taken = Shares(), []
    share = 1.0
    for _ in range(ticks):
        r, w = min(read_demand, share), min(write_demand, share)
        taken.append((r, w))
        share = shares.step(r, w)
    half = taken[ticks // 2:]
    return sum(r for r, _ in half) / len(half), sum(w for _, w in half) / len(half)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1))
def test_reads_and_writes_together_take_one_drives_time_and_lose_little_of_it(read_demand, write_demand):
    r, w = _run(read_demand, write_demand)
    assert r + w <= OVER + 1e-9  # never a drive and a half
    assert r + w >= 0.9 * min(1.0, read_demand + write_demand) - 1e-9  # and what they want of it, where it has it
    assert r <= read_demand + 1e-9 and w <= write_demand + 1e-9


@pytest.mark.parametrize("read_demand, write_demand", [(1.0, 1.0), (1.0, 0.7), (0.8, 1.0)])
def test_two_directions_that_both_press_take_equal_shares(read_demand, write_demand):
    r, w = _run(read_demand, write_demand)
    assert r == pytest.approx(w, abs=0.02) and r + w == pytest.approx(1.0, abs=0.1)


def test_a_direction_alone_has_the_whole_drive():
    assert _run(1.0, 0.0) == pytest.approx((1.0, 0.0))
    assert _run(0.0, 1.0) == pytest.approx((0.0, 1.0))


def test_a_direction_alone_keeps_the_whole_drive_through_its_bursts():
    """Writeback comes in bursts (a second's writes in one tick, then none): measured, a durable TestDFSIO write
    alone lost 17% of its rate where bursts counted as the drive overbooked. A sliver of reads beside it (a few
    metadata reads) leaves it alone too."""
    shares = Shares()
    assert all(shares.step(0.01, 2.0 if i % 2 else 0.0) == 1.0 for i in range(100))


def test_the_share_never_falls_under_its_floor():
    shares = Shares()
    assert min(shares.step(5.0, 5.0) for _ in range(50)) == pytest.approx(FLOOR)


def test_the_time_a_direction_took_is_its_bytes_or_its_requests_whichever_held_it():
    # 50 MiB read in 1 s: half the drive's second; 100 writes of 4 KiB: half of its 200 IOPS, a sliver of its MB/s
    assert time_used(FULL, 50 * MiB, 50, 100 * 4096, 100, seconds=1.0) == pytest.approx((0.5, 0.5))
    assert time_used(FULL, 50 * MiB, 50, 0, 0, seconds=0.5) == pytest.approx((1.0, 0.0))


def test_the_limits_are_each_direction_at_the_share():
    assert shared_limits(FULL, 0.5) == {"read_mb_s": 50.0, "write_mb_s": 25.0, "read_iops": 100.0, "write_iops": 100.0}


def test_a_limit_below_one_unit_is_written_as_one_never_as_no_limit():
    from tierbench.storage.throttle import limit_values

    written = limit_values({"read_mb_s": 1e-9, "write_mb_s": 2.0, "read_iops": 0.4, "write_iops": 0})
    assert written == {"read_bps_device": 1, "write_bps_device": 2 * MiB, "read_iops_device": 1, "write_iops_device": 0}


def test_the_full_limits_are_set_before_the_runs_and_after_them():
    """A study killed while a device's share was low leaves it so: the next one starts from the full limits."""
    applied = []
    with SharedTime({"no-such-loop": ("7:99", FULL)}, lambda mm, limits: applied.append((mm, limits))):
        assert applied == [("7:99", FULL)]
    assert applied == [("7:99", FULL), ("7:99", FULL)]
