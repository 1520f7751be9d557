"""`s3`: an S3 object store through Hadoop's S3A connector (its fs.s3a.* settings, its jars on the engines'
classpaths), optionally behind HAProxy whose serving gateways a run sets (storage/balancer.py)."""

import re
from pathlib import Path

from ...errors import SpecError
from ...redaction import has_userinfo
from ...toolchain import hadoop_s3a_lib, spark_s3a_jars
from ...units import parse_size
from ..types import COMMITTER_KEY, S3_COMMITTERS, Connector, RemoteStorage, positive_int, unknown_fields

ORDER = 4

S3_KEYS = ("type", "endpoint", "bucket", "prefix", "region", "path_style", "ssl", "signing_algorithm", "input_fadvise",
           "readahead_range", "fast_upload_buffer", "multipart_size", "connection_maximum", "committer", "gateways", "balancer",
           "balancer_admin")
# how the gateways in front of the store are set for a run (storage/balancer.py); not S3A's settings
GATEWAYS_KEY, BALANCER_KEY, BALANCER_ADMIN_KEY = "tierbench.gateways", "tierbench.balancer", "tierbench.balancer_admin"
SECRET_KEYS = ("access_key", "secret_key", "access_key_id", "secret_access_key", "session_token", "password")


class S3Storage(RemoteStorage):
    name, title = "s3", "an S3 object store through Hadoop's S3A connector"
    engines = ("spark", "hadoop")

    def connector(self, engine):
        """Hadoop's S3A connector, built for the engine's Hadoop: pyspark's client, or the hadoop engine's 3.4.2."""
        fetch = {"spark": _spark_s3a_jars, "hadoop": _hadoop_s3a_jars}.get(engine)
        return Connector("the S3A connector", fetch) if fetch else Connector()

    def default_fs(self, data):
        """The bucket: TestDFSIO works on the default file system (the hadoop engine keeps its job staging local)."""
        return re.match(r"^s3a://[^/]+", data[0]).group(0)

    def parse(self, src, where, value, base_dir):
        """An s3 data table -> the fs.s3a.* settings. Credentials are refused here: they come from the environment."""
        for k in value:
            if k in SECRET_KEYS or "secret" in k or "key" in k and k != "readahead_range":
                raise SpecError(src, f"{where}.{k}", "credentials never go in a spec: export AWS_ACCESS_KEY_ID and "
                                "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) before running tierbench")
        unknown_fields(src, f"{where}.", value, S3_KEYS)
        endpoint, bucket = value.get("endpoint"), value.get("bucket")
        if isinstance(endpoint, str) and has_userinfo(endpoint):
            raise SpecError(src, f"{where}.endpoint", "credentials never go in a spec (user:key@ in the endpoint): export "
                            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) before running tierbench")
        if not isinstance(endpoint, str) or not re.match(r"^https?://[^/]+/?$", endpoint):
            raise SpecError(src, f"{where}.endpoint", f"expected an S3 endpoint such as \"http://127.0.0.1:7480\", got {endpoint!r}")
        if not isinstance(bucket, str) or not re.match(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", bucket):
            raise SpecError(src, f"{where}.bucket", f"expected an S3 bucket name (3-63 lower-case letters, digits, '.', '-'), got {bucket!r}")
        conf = {"fs.s3a.endpoint": endpoint.rstrip("/"), "fs.s3a.endpoint.region": str(value.get("region", "us-east-1")),
                "fs.s3a.path.style.access": str(bool(value.get("path_style", True))).lower(),
                "fs.s3a.connection.ssl.enabled": str(bool(value.get("ssl", endpoint.startswith("https")))).lower()}
        choices = {"input_fadvise": ("fs.s3a.experimental.input.fadvise", ("sequential", "random", "normal", "adaptive")),
                   "fast_upload_buffer": ("fs.s3a.fast.upload.buffer", ("disk", "array", "bytebuffer")),
                   # how the jobs commit their output (OutputCommit.java): Hadoop's FileOutputCommitter v1 / v2
                   # (renames: copies on S3) or S3A's directory (staged) and magic committers (multipart uploads)
                   "committer": (COMMITTER_KEY, S3_COMMITTERS)}
        for k, (key, allowed) in choices.items():
            if k in value:
                if value[k] not in allowed:
                    raise SpecError(src, f"{where}.{k}", f"expected one of {', '.join(allowed)}, got {value[k]!r}")
                conf[key] = value[k]
        for k, key in (("readahead_range", "fs.s3a.readahead.range"), ("multipart_size", "fs.s3a.multipart.size")):
            if k in value:
                try:
                    conf[key] = str(parse_size(value[k]))
                except ValueError as e:
                    raise SpecError(src, f"{where}.{k}", str(e)) from None
        if "connection_maximum" in value:
            conf["fs.s3a.connection.maximum"] = str(positive_int(src, f"{where}.connection_maximum", value["connection_maximum"], 1))
        if "signing_algorithm" in value:
            conf["fs.s3a.signing-algorithm"] = str(value["signing_algorithm"])
        conf.update(self._gateways(src, where, value))
        prefix = str(value.get("prefix", "")).strip("/")
        return (f"s3a://{bucket}" + (f"/{prefix}" if prefix else ""),), None, conf

    def _gateways(self, src, where, value) -> dict:
        """`gateways = N` (how many of the gateways behind HAProxy serve) and `balancer = "haproxy" | "none"`
        (through HAProxy, or straight to its first gateway), both through HAProxy's admin socket."""
        if not any(k in value for k in ("gateways", "balancer", "balancer_admin")):
            return {}
        admin = value.get("balancer_admin")
        if isinstance(admin, str) and admin.startswith("~/"):
            admin = str(Path(admin).expanduser())  # (`services up s3`'s default dir is under the home directory)
        if not isinstance(admin, str) or not re.match(r"^(/\S+|[\w.-]+:\d{1,5})$", admin):
            raise SpecError(src, f"{where}.balancer_admin", "gateways and balancer are set through HAProxy's admin socket: give "
                            "its path (`stats socket PATH level admin`; `tierbench services up s3 --balancer haproxy` "
                            f"prints it) or host:port, got {admin!r}")
        balancer = value.get("balancer", "haproxy")
        if balancer not in ("haproxy", "none"):
            raise SpecError(src, f"{where}.balancer", f"expected \"haproxy\" or \"none\", got {balancer!r}")
        conf = {BALANCER_KEY: balancer, BALANCER_ADMIN_KEY: admin}
        if "gateways" in value:
            gateways = positive_int(src, f"{where}.gateways", value["gateways"], 1)
            if balancer == "none" and gateways > 1:
                raise SpecError(src, f"{where}.gateways", f"balancer = \"none\" sends every request to one gateway, so "
                                f"gateways = {gateways} cannot serve: sweep gateways with balancer = \"haproxy\"")
            conf[GATEWAYS_KEY] = str(gateways)
        return conf

    def gateways_for_run(self, store_conf):
        from ..balancer import GatewaysForRun

        if BALANCER_ADMIN_KEY not in store_conf:
            return None
        count = store_conf.get(GATEWAYS_KEY)
        return GatewaysForRun(store_conf[BALANCER_ADMIN_KEY], int(count) if count else None, store_conf[BALANCER_KEY])

    def engine_settings(self, replication, store_conf):
        settings = dict(store_conf)
        if store_conf.get(BALANCER_KEY) == "none":  # S3A to the first gateway itself, as HAProxy knows its address
            from ..balancer import HAProxyAdmin

            settings["fs.s3a.endpoint"] = "http://" + HAProxyAdmin(store_conf[BALANCER_ADMIN_KEY]).first_gateway()
        return settings

    fail_fast = {"fs.s3a.connection.establish.timeout": "5s", "fs.s3a.connection.timeout": "15s",
                 "fs.s3a.attempts.maximum": "1", "fs.s3a.retry.limit": "1", "fs.s3a.retry.interval": "100ms",
                 "fs.s3a.retry.throttle.limit": "1"}


def _spark_s3a_jars() -> tuple[str, ...]:
    return tuple(str(j) for j in spark_s3a_jars())


def _hadoop_s3a_jars() -> tuple[str, ...]:
    return (str(hadoop_s3a_lib() / "*"),)


STORAGE_TYPE = S3Storage()
