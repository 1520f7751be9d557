"""S3 behind HAProxy: its admin socket answers and has the gateways each configuration asks for, or one line before
anything is written."""

from ..errors import UserError


def check_gateways(spec) -> None:
    for c in spec.storage:
        gateways = c.type.gateways_for_run(c.store_conf)
        if gateways is not None:
            have = len(gateways.admin.servers())
            if (gateways.count or 1) > have:
                raise UserError(f"{spec.source}: storage.{c.name}.data.gateways = {gateways.count}: the HAProxy at "
                                f"{gateways.admin.address} has {have} gateway server(s); start more "
                                "(`tierbench services up s3 --gateways N --balancer haproxy`) or sweep fewer")
