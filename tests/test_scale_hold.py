"""The scale model's stand-in for the target's page cache where the model's budget cannot be it: a map's spills and
output read back from memory (scale/model.py hold_rule, tierbench.io.HeldFiles). Fast: no JVM (the e2e check is
tests/test_scale_model.py's budget test)."""

from tierbench.model.hardware import load_hardware
from tierbench.scale.model import Here, derive, hadoop_conf
from tierbench.units import MB

SANDISK = load_hardware("sandisk-hybrid")
TB = 10**12


def test_a_maps_spills_and_output_are_held_where_a_target_nodes_cache_holds_a_wave_of_them():
    """SanDisk's node: 16 GB less 12 heaps of 512 MB = 10 GB of page cache, a wave of its 12 maps 3 GB (128 MB of
    input each, spilled then merged): the target reads them back from memory, and so does the hadoop engine's
    model. With 4 GB a node the wave outgrows the cache: read from the drives; a Spark target never holds them."""
    from dataclasses import replace

    from tierbench.scale.model import HOLD_FACTOR, hold_rule

    m = derive(SANDISK, TB, 128 * MB, Here(cores=2), target_reducers=36, task_heap=512 * MB)
    assert m.hold_map_output and hold_rule(SANDISK, 10 * 2**30)
    conf = hadoop_conf(m)
    assert conf["tierbench.local.hold"] == "true" and conf["tierbench.local.hold.max.bytes"] == HOLD_FACTOR * 128 * MB
    small = replace(SANDISK, memory_bytes=4 * 2**30)
    m4 = derive(small, TB, 128 * MB, Here(cores=2), target_reducers=36, task_heap=512 * MB)
    assert not m4.hold_map_output and "tierbench.local.hold" not in hadoop_conf(m4)
    assert "hold_map_output" not in m4.to_dict()  # as recorded before the rule: an old study's fingerprint holds
    assert not hold_rule(replace(SANDISK, engine="spark"), 10 * 2**30)
    shown = {s.name: s for s in m.settings}["a map's spills and output read back"]
    assert shown.here.startswith("from memory") and "3.22 GB" in shown.target and "10.7 GB" in shown.target


def test_the_bytes_a_job_held_are_summed_from_its_log():
    from tierbench.engines.hadoop.logparse import held_bytes

    log = ("2026-11-27 12:47:39,024 INFO io.HeldFiles: held /d/attempt_m_000001_0/output/spill0.out in memory (12568748 bytes)\n"
           "2026-11-27 12:47:39,100 INFO mapred.MapTask: Finished spill 1\n"
           "2026-11-27 12:47:40,101 INFO io.HeldFiles: held /d/attempt_m_000001_0/output/file.out in memory (7372284 bytes)\n")
    assert held_bytes(log) == 12568748 + 7372284 and held_bytes("no such lines") == 0


def test_the_reduce_inputs_read_past_the_page_cache_are_summed_from_its_log():
    from tierbench.engines.hadoop.logparse import direct_read_bytes

    log = ("2026-11-27 17:02:11,120 INFO io.DirectReads: read /d/attempt_r_000000_0/map_1.out past the page cache "
           "(3379200 bytes from the drive)\n"
           "2026-11-27 17:02:11,180 INFO reduce.MergeManagerImpl: Merging 7 files, 23273370 bytes from disk\n"
           "2026-11-27 17:02:12,301 INFO io.DirectReads: read /d/attempt_r_000001_0/map_0.out past the page cache "
           "(3375104 bytes from the drive)\n")
    assert direct_read_bytes(log) == 3379200 + 3375104 and direct_read_bytes("held /x in memory (5 bytes)") == 0
