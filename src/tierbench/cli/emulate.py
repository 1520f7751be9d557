"""tierbench emulate up|down|status: devices of a known shape (HDD, SATA SSD, NVMe) on this machine, as root."""

import argparse

from ..errors import UserError


def add_parser(subparsers):
    e = subparsers.add_parser(
        "emulate", help="make, remove or show emulated devices (up, down, status: an HDD, a SATA SSD, an NVMe SSD) on this "
                   "machine (root)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="An emulated device is a loop device on a sparse file, ext4, mounted noatime under tierbench's "
                    "cache dir, throttled to a profile (sequential MB/s and IOPS, read and write) by cgroup-v1 blkio limits "
                    "on the device (in the root group, so the kernel's writeback meets them too). A study whose "
                    "directories lie on emulated devices places its engine where the limits hold, so "
                    "one machine can compare an HDD, a hybrid and an SSD configuration as the published studies did. "
                    "Profiles are data-sheet figures scaled by one factor to this machine's disk (ratios hold). "
                    "Writes left in the page cache are memory until written back: keep durability = \"durable\" (the default). "
                    "--backing memory puts the device's image on a tmpfs of its own instead of this machine's disk, so "
                    "figures faster than the disk hold (a scale model's drives are memory-backed where they fit).\n\n"
                    "profiles:\n"
                    "  hdd       7,200 rpm HDD: ~200 MB/s, ~180 IOPS (before scaling)\n"
                    "  sata-ssd  SATA SSD: ~540/500 MB/s, 90K/60K IOPS\n"
                    "  nvme      NVMe SSD: ~3,500/3,000 MB/s, 500K/400K IOPS\n"
                    "  custom    your figures: --read-mb-s, --write-mb-s, --read-iops, --write-iops (not scaled)",
        epilog="examples:\n"
               "  tierbench emulate up hdd1 --profile hdd --size 8GB\n"
               "  tierbench emulate up ssd1 --profile sata-ssd --size 8GB\n"
               "  tierbench emulate status              (then point a spec's dirs at the mount points it prints)\n"
               "  tierbench emulate down hdd1\n\n"
               "One tierbench at a time makes or removes a device (a second one refuses). A device is recorded before "
               "anything of it is attached, so `down` removes a half-made one too (an `up` that was killed). Every "
               "limit tierbench writes is recorded; `status` and `up` clear those a device no longer holds, and name "
               "limits tierbench did not write, untouched.")
    e.add_argument("action", choices=("up", "down", "status"))
    e.add_argument("name", nargs="?", help="the device's name (up, down)")
    e.add_argument("--profile", default="hdd", help="hdd, sata-ssd, nvme or custom (default: hdd)")
    e.add_argument("--size", default="8GB", help="the device's size (a sparse file: disk space is taken as written)")
    e.add_argument("--backing", choices=("disk", "memory"), default="disk",
                   help="what the image lies on: this machine's disk (default) or memory (a tmpfs; at most half of "
                        "this machine's memory for all memory-backed devices together)")
    e.add_argument("--no-check", action="store_true", help="up: skip the fio check on the device (about 10 s)")
    for flag in ("read-mb-s", "write-mb-s", "read-iops", "write-iops"):  # (read as text: bounds.py checks them)
        e.add_argument(f"--{flag}", help="custom profile: " + flag.replace("-", " "))
    return e


def run(args) -> int:
    from .. import bounds
    from ..ownership import check_name
    from ..storage import emulation as em

    if args.action == "status":
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
