"""bench/bench_scale_out.py's hardware descriptions of loopback Workers: what it hands `tierbench predict` must be a
valid description, N nodes of one Worker each, or the machine's cores, drive and RAM shared among the Workers."""

import importlib.util
from pathlib import Path

from tierbench.model.hardware import Drive, load_hardware

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_scale_out.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_scale_out", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHAPE = {"cores": 1, "worker_memory": "1g", "drive": Drive("sata-ssd", 70.2, 76.4, 20000, 15000, "emulated"),
         "host_cores": 2, "host_memory": 24 << 30}


def test_one_worker_is_a_node_of_the_workers_cores_with_the_whole_drive_and_ram(tmp_path):
    hw = load_hardware(_bench().descriptions(SHAPE, 3, tmp_path)["as nodes"])
    assert (hw.nodes, hw.cores, hw.memory_bytes) == (1, 1, 24 << 30)  # `predict --nodes N` makes it N of them
    d = hw.data.drive
    assert (d.read_mb_s, d.write_mb_s, d.read_iops, d.write_iops) == (70.2, 76.4, 20000, 15000)
    assert hw.intermediate_on_data and hw.write_copies == 1


def test_workers_sharing_the_machine_get_at_most_its_cores_and_split_its_drive_and_ram(tmp_path):
    bench = _bench()
    for workers, nodes in ((1, 1), (2, 2), (3, 2), (5, 2)):  # 3 Workers on 2 cores: 2 cores' worth of CPU
        hw = load_hardware(bench.descriptions(SHAPE, workers, tmp_path)["shared"])
        assert (hw.nodes, hw.cores) == (nodes, 1), workers
        assert abs(hw.data.drive.write_mb_s * nodes - 76.4) < 1e-3 and abs(hw.data.drive.read_iops * nodes - 20000) < 1e-2
        assert hw.memory_bytes * nodes <= 24 << 30 < (hw.memory_bytes + 1) * nodes
