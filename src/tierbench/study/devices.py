"""A study's emulated devices: up before it (the spec's `data = { emulate = ... }`), this process -- so the engines
it starts -- in the group whose limits hold them, and down once it is done. What each device is (its profile) is the
spec's: a scale model's are sized from its target and calibration (scale/)."""

import sys
from pathlib import Path

from ..storage import emulation


def _say(text: str) -> None:
    print(f"tierbench: {text}", file=sys.stderr, flush=True)


def device_names(spec) -> set[str]:
    return {e["device"] for c in spec.storage for es in c.emulated.values() for e in es}


def emulate(spec, unemulated: bool) -> dict:
    """Devices the spec declares up, and this process in the group whose limits hold them when any of the study's
    dirs lies on an emulated device; loop device name -> the emulated device's facts ({} for none)."""
    declared = list({e["device"]: e for c in spec.storage for es in c.emulated.values() for e in es}.values())
    emulation.clear_leftovers(say=_say, report_others=bool(declared) and not unemulated)  # (others' matter to its devices)
    if declared and unemulated:
        print("tierbench: warning: --unemulated: the spec's emulated devices are plain directories on this "
              "machine's disk; the configurations do not differ in their devices", file=sys.stderr, flush=True)
        return {}
    if declared:
        emulation.bring_up(declared, on_phase=lambda t: print(f"  {t}", file=sys.stderr, flush=True))
    dirs = [d for c in spec.storage for d in (*c.local_data, *c.intermediate)]
    used = emulation.devices_under(dirs)
    if not used:
        return {}
    emulation.check_can_emulate()
    emulation.enter_group()
    # with the limits the throttle applied (its IOPS may exceed the profile's): the report judges the runs by them
    # (reads and writes share each device's time while the runs go: scale/shared_time.py)
    return {Path(d.loop).name: {**d.to_dict(), "limits": emulation.throttle_limits(d.profile), "time_shared": True}
            for d in used}


def kept_up(spec) -> str:
    """What a study that stopped with failed runs says of its devices (kept for --resume)."""
    return emulation.kept_up(device_names(spec))


def down(spec) -> None:
    """The devices the spec declared, down once the study is done (their data with them). Devices of the same names
    left from an interrupted run of this study are the study's too. Called once the study's hooks are left (its
    shared-time controller stopped): after it, nothing writes their limits again (emulation.down clears them and
    checks they are gone)."""
    for name in sorted(device_names(spec)):
        if emulation.device(name) is not None:
            emulation.down(name)
