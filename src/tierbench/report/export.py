"""Exporters of run records: JSON (canonical, the records as stored) and CSV (flat, one row per run)."""

import csv
import io
import json

CSV_FIXED = ("study", "run_key", "config", "workload", "label", "engine", "repeat", "attempt", "status",
             "wall_s", "started_at", "ended_at", "page_cache_dropped", "engine_version", "git_commit", "error")


def to_json(records: list[dict]) -> str:
    return json.dumps(records, indent=2, default=str)


def to_csv(records: list[dict]) -> str:
    metric_names = sorted({m for r in records for m in r.get("metrics", {})})
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(list(CSV_FIXED) + [f"metrics.{m}" for m in metric_names])
    for r in records:
        w.writerow([r.get(k) for k in CSV_FIXED] + [r.get("metrics", {}).get(m) for m in metric_names])
    return buf.getvalue()


EXPORTERS = {"json": to_json, "csv": to_csv}
