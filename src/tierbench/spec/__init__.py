"""Study specs: the TOML a user writes, validated in full before anything runs, and its run plan."""

from .schema import Spec, EngineSpec, StorageConfig, Variant, WorkloadSpec, load_spec, parse_spec, read_spec
from .plan import PlannedRun, make_plan

__all__ = ["Spec", "EngineSpec", "Variant", "StorageConfig", "WorkloadSpec", "load_spec", "parse_spec", "read_spec", "PlannedRun", "make_plan"]
