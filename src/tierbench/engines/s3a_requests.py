"""S3A's own request statistics -> a run's HTTP requests to the object store, by kind (for pricing them).

S3A (hadoop-aws 3.4.2, the hadoop engine's; 3.5.0, pyspark 4.3.0's) counts what it asks of the store in each
file system's IOStatistics (org.apache.hadoop.fs.s3a.Statistic). Which counter is which request, read from where
hadoop-aws increments each (S3AFileSystem, impl/S3AStoreImpl, S3ABlockOutputStream, S3AInputStream's statistics,
MultipartUtils, the committers' statistics):

  GET     action_http_get_request        each GetObject an input stream opens (a read, a re-open after a seek)
  PUT     object_put_request             each single-request PutObject (files, directory markers, the magic
                                         committer's markers and .pending files)
          multipart_upload_part_put      each UploadPart of an output stream's multipart upload
          committer_commits_created      the directory committer's UploadParts: it counts them in its own
                                         statistics only, but each file it uploads is a part at least (exactly
                                         one below fs.s3a.multipart.size, 64 MB by default)
  LIST    object_list_request            each ListObjectsV2 (first page)
          object_continue_list_request   each further page
          object_multipart_list          each ListMultipartUploads page (MultipartUtils)
          multipart_upload_list          each ListMultipartUploads of S3AFileSystem (the committers' cleanup)
  HEAD    object_metadata_request        each HeadObject (getFileStatus' probes, 404s included)
          store_exists_probe             a HeadBucket (fs.s3a.bucket.probe)
  DELETE  object_delete_request          each DeleteObject
          object_multipart_aborted       each AbortMultipartUpload (an HTTP DELETE)
  COPY    object_copy_requests           each CopyObject (a rename is a copy and a delete)
  POST    object_multipart_initiated     each CreateMultipartUpload, once; but an output stream's twice (its own
            - multipart_upload_completed   tracker and the file system's, merged as it closes), and each stream's
            - committer_magic_files_created  upload ends in the stream's complete or, under a magic path, in a
                                         pending commit: so these are taken off it
          multipart_upload_completed     each CompleteMultipartUpload of an output stream
          committer_commits_completed    each CompleteMultipartUpload of an S3A committer's job commit
          object_bulk_delete_request     each DeleteObjects (a POST of up to 1000 keys)

A duration-tracked counter counts each call, failed ones too (their `.failures` is a part of it, not more).
`audit_request_execution` (every request S3A's audit layer saw the SDK execute) is kept beside them: the kinds add
up to it on real runs on Ceph (both engines; Hadoop's committers and S3A's; tests/test_s3.py), except for the GETs
of an input stream never closed (S3A merges a stream's counts as it closes it: TeraSort's sampler on the hadoop
engine leaves two) and the directory committer's parts beyond one a file: what the audit saw beyond the kinds is
said in `s3a_not_covering`.
"""

import re

REQUEST_KINDS = ("GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST")  # a contract with the cost model: keep
KIND_COUNTERS = {
    "GET": ("action_http_get_request",),
    "PUT": ("object_put_request", "multipart_upload_part_put", "committer_commits_created"),
    "LIST": ("object_list_request", "object_continue_list_request", "object_multipart_list", "multipart_upload_list"),
    "HEAD": ("object_metadata_request", "store_exists_probe"),
    "DELETE": ("object_delete_request", "object_multipart_aborted"),
    "COPY": ("object_copy_requests",),
    "POST": ("object_multipart_initiated", "multipart_upload_completed", "committer_commits_completed",
             "object_bulk_delete_request"),
}
# counted twice: (the counter, the counters of the requests whose second count it holds)
DOUBLE_COUNTED = ("object_multipart_initiated", ("multipart_upload_completed", "committer_magic_files_created"))
TOTAL_COUNTER = "audit_request_execution"
COUNTERS = (*(c for kind in REQUEST_KINDS for c in KIND_COUNTERS[kind]), "committer_magic_files_created", TOTAL_COUNTER)


def requests_by_kind(statistics: dict) -> dict[str, int]:
    """S3A's counters (name -> value) -> {kind: requests}, every kind present (0 when none)."""
    counted = lambda name: int(statistics.get(name, 0))  # noqa: E731
    twice, seconds = DOUBLE_COUNTED
    once = {twice: max(0, counted(twice) - sum(counted(c) for c in seconds))}
    return {kind: sum(once.get(c, counted(c)) for c in KIND_COUNTERS[kind]) for kind in REQUEST_KINDS}


def difference(before: dict, after: dict) -> dict[str, int]:
    """The counters a run added: after - before, for the counters the mapping uses (a file system created during
    the run counts from 0; one closed during it would go negative, which is clamped and told by the caller)."""
    return {c: int(after.get(c, 0)) - int(before.get(c, 0)) for c in COUNTERS}


def details(statistics: dict, not_covering: list[str]) -> dict:
    """The run record's details: `s3a_requests` by kind, the raw `s3a_statistics` they came from, and
    `s3a_not_covering`: what of the run's requests the counts do not include (empty when they cover it all)."""
    used = {c: max(0, int(statistics.get(c, 0))) for c in COUNTERS}
    requests = requests_by_kind(used)
    beyond = used[TOTAL_COUNTER] - sum(requests.values())
    if beyond > 0:
        not_covering = [*not_covering, f"{beyond} request(s) S3A's audit layer saw that no counter of a kind holds "
                        "(e.g. the GETs of an input stream never closed, S3A adding a stream's counts as it closes it; a directory "
                        "committer's parts beyond one a file)"]
    return {"s3a_requests": requests, "s3a_statistics": used, "s3a_not_covering": list(not_covering)}


# IOStatisticsLogging's pretty string, as S3AFileSystem.close() logs it at fs.iostatistics.logging.level (of
# Hadoop 3.4.2's and hadoop-aws' classes only S3AFileSystem calls logIOStatisticsAtLevel), one counter a line:
#   ... INFO statistics.IOStatisticsLogging: IOStatistics: counters=((action_http_get_request=2)
#   (object_list_request=5));
LOGGED = re.compile(r"IOStatisticsLogging: IOStatistics: counters=\((.*?)\);", re.S)
LOGGED_COUNTER = re.compile(r"\(([\w.-]+)=(\d+)\)")


def logged_statistics(log: str) -> tuple[dict[str, int], int]:
    """The counters every S3A file system logged as it closed (one line each, its own counts), added up; and how
    many file systems logged."""
    total: dict[str, int] = {}
    closed = 0
    for m in LOGGED.finditer(log):
        closed += 1
        for name, value in LOGGED_COUNTER.findall(m.group(1)):
            total[name] = total.get(name, 0) + int(value)
    return total, closed


def from_snapshots(before: dict, after: dict, not_covering: list[str]) -> dict:
    """A run's details from two snapshots of one JVM's S3A counters (S3AStatistics.java: `filesystems`, `counters`
    or `error`); empty when that JVM had no S3A file system (the run did not use S3)."""
    for snap in (before, after):
        if snap.get("error"):
            return {"s3a_not_covering": [*not_covering, f"S3A's counters: {snap['error']}"]}
    if not after.get("filesystems"):
        return {}
    delta = difference(before.get("counters", {}), after.get("counters", {}))
    if after["filesystems"] < before.get("filesystems", 0) or any(v < 0 for v in delta.values()):
        not_covering = [*not_covering, "an S3A file system closed during the run took its counts with it"]
    return details(delta, not_covering)


def spark_not_covering(master: str) -> list[str]:
    """In Spark's local mode the tasks run in the driver's JVM, whose S3A counters the spark engine reads; on a
    cluster they run in the executors' JVMs."""
    if master.startswith("local"):
        return []
    return [f"the executors' requests: on {master} they run in JVMs of their own, whose S3A counters are not read "
            "(these are the driver's: listing, job commit)"]


def from_log(log: str, not_covering: list[str]) -> dict:
    """A run's details from the S3A statistics its job's JVM logged as it closed its file systems; when none
    logged, only what is not covered (the counts were not seen, so none are claimed)."""
    statistics, closed = logged_statistics(log)
    if not closed:
        return {"s3a_not_covering": [*not_covering, "no S3A file system logged its statistics as it closed "
                                     "(fs.iostatistics.logging.level must be info, at INFO in the job's log4j)"]}
    return details(statistics, not_covering)
