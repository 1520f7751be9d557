"""tierbench emulate up|down|status: devices of a known shape (HDD, SATA SSD, NVMe) on this machine, as root."""

from ..errors import UserError


DESCRIPTION = """\
An emulated device is a loop device on a sparse file (ext4, mounted under tierbench's cache folder) throttled
to a profile's MB/s and IOPS by cgroup limits (v1 blkio, v2 io.max). Put a study's directories on its mount point
to compare HDD, hybrid and SSD configurations on one machine. Needs root, cgroup v1 blkio or v2 io. Profiles:
data-sheet figures scaled by one factor to this machine's disk (ratios hold). More: docs/emulation.md.

profiles (before scaling):
  hdd       7,200 rpm HDD: ~200 MB/s, ~180 IOPS
  sata-ssd  SATA SSD: ~540/500 MB/s read/write, 90K/60K IOPS
  nvme      NVMe SSD: ~3,500/3,000 MB/s read/write, 500K/400K IOPS
  custom    your figures: --read-mb-s, --write-mb-s, --read-iops, --write-iops"""

EPILOG = """\
examples:
  tierbench emulate up hdd1 --profile hdd --size 8GB   # prints its mount point
  tierbench emulate status                             # each device and its mount point
  tierbench emulate down hdd1

Writes left in the page cache are memory until written back: keep a study's durability = "durable" (the
default). One tierbench at a time makes or removes a device. `down` also removes a half-made one (an `up` that
was killed); `status` and `up` clear limits of tierbench's that a device no longer holds, and name others'
limits, untouched."""


def add_parser(subparsers):
    e = subparsers.add_parser("emulate", help="make, remove or list emulated HDDs and SSDs (root)",
                              description=DESCRIPTION, epilog=EPILOG)
    e.add_argument("action", choices=("up", "down", "status"), help="up: make a device; down: remove it; status: "
                   "list them")
    e.add_argument("name", nargs="?", help="the device's name (up, down)")
    e.add_argument("--profile", default="hdd", help="hdd, sata-ssd, nvme or custom (default: hdd)")
    e.add_argument("--size", default="8GB", help="the device's size, e.g. 8GB (default: 8GB; a sparse file: disk "
                   "space is taken as data is written)")
    e.add_argument("--backing", choices=("disk", "memory"), default="disk",
                   help="what the image lies on: this machine's disk (default) or memory (a tmpfs: figures faster "
                        "than the disk hold; at most half of the memory for all memory-backed devices together)")
    e.add_argument("--no-check", action="store_true", help="up: skip the fio check of the device (about 10 seconds)")
    custom = e.add_argument_group("--profile custom (all four; not scaled)")
    for flag, unit, what in (("read-mb-s", "MB/S", "read speed, MB/s (e.g. 200)"),
                             ("write-mb-s", "MB/S", "write speed, MB/s (e.g. 180)"),
                             ("read-iops", "IOPS", "read operations per second (e.g. 180)"),
                             ("write-iops", "IOPS", "write operations per second (e.g. 160)")):
        custom.add_argument(f"--{flag}", metavar=unit, help=what)  # (read as text: bounds.py checks them)
    return e


def run(args) -> int:
    from .. import bounds
    from ..ownership import check_name
    from ..storage import emulation as em

    if args.action == "status":
        from ..storage.cgroups import describe

        print("\n".join(describe()))
        em.clear_leftovers(say=lambda t: print(f"tierbench: {t}"))
        devs = em.devices()
        for d in devs:
            print(em.describe(d))
        if not devs:
            print("no emulated devices: tierbench emulate up NAME --profile hdd|sata-ssd|nvme")
        return 0
    if not args.name:
        raise UserError(f"emulate {args.action}: name the device, e.g. tierbench emulate {args.action} hdd1")
    if args.action == "down":
        em.down(args.name)
        print(f"{args.name}: down (unmounted, its limits cleared and checked, detached, its image deleted)")
        return 0
    check_name(args.name, "emulate up: the device's name")
    size = bounds.option_size("--size", args.size, bounds.EMULATED_SIZE)
    custom = None
    if args.profile == "custom":
        figures = {"--read-mb-s": args.read_mb_s, "--write-mb-s": args.write_mb_s, "--read-iops": args.read_iops,
                   "--write-iops": args.write_iops}
        if any(f is None for f in figures.values()):
            raise UserError("--profile custom needs --read-mb-s, --write-mb-s, --read-iops and --write-iops, each > 0")
        custom = em.Profile("custom", *(bounds.option(flag, v, bounds.DRIVE_IOPS if "iops" in flag else bounds.DRIVE_MB_S)
                                        for flag, v in figures.items()), "given on the command line")
    backing, why_not = em.choose(args.backing, size, em.memory_backed_bytes())
    if why_not:
        raise UserError(f"emulate up {args.name} --backing memory: {why_not}; give a smaller --size or --backing disk")
    dev = em.up(args.name, args.profile, size, custom, on_phase=lambda t: print(f"  {t}"), backing=backing)
    if not args.no_check:
        em.fio_check(dev, on_phase=lambda t: print(f"  {t}"))
    print(em.describe(em.device(args.name)))
    print(f"put a spec's dirs under {dev.mount}")
    return 0
