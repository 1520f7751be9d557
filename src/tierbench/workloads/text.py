"""Text workloads: textgen writes Zipf-distributed text; WordCount (CPU-heavy, map-side combine) and Grep
(a pure read) process it. On the hadoop engine: Hadoop's RandomTextWriter, WordCount and Grep examples."""

from ..units import MB
from .base import (OUTPUT_CODEC, SPLIT, IORoles, Measurement, Metric, Param, Workload, define_metrics, generator_tasks,
                   output_codec_conf, rate, split_conf)

ORDER = 30
EXAMPLES = "org.apache.hadoop.examples."
TEXT_ALPHABET = set("abcdefghijklmnopqrstuvwxyz \n")  # all textgen ever writes, besides the plant

define_metrics(
    distinct_words=Metric("words", "wordcount: distinct words (output lines)"),
    matches=Metric("matches", "grep: occurrences of the pattern"),
)


class TextGen(Workload):
    name, title = "textgen", "Text generation"
    doc = ("Writes text for wordcount and grep: Zipf-distributed words from a fixed vocabulary of pseudo-words, "
           "lines of 1-24 words (compresses to about 40%, like natural text). On the hadoop engine: Hadoop's "
           "RandomTextWriter (sentences from its own 1000-word list) with TextOutputFormat.")
    params = (Param("size", "size", 64 * MB, "bytes of text to generate (before output compression)"),
              Param("tasks", "count", 0, "writing tasks = output files (0: one per 64 MB, at least 2)"),
              Param("vocabulary", "count", 50_000, "distinct words to draw from", 1),
              Param("zipf", "number", 1.0, "Zipf exponent of word frequencies (1.0: natural-language-like)"),
              Param("plant", "text", "", "a string planted in every `plant_every`-th line (grep then has a known count)"),
              Param("plant_every", "count", 0, "plant the string once in every N-th line (0: never)"),
              OUTPUT_CODEC)
    produces = "text"
    warm_up_overrides = {"size": 8 * MB, "tasks": 2}
    metrics = ("data_mb", "stored_mb", "throughput_mb_s", "words", "lines", "tasks")
    phases = ("generate + write",)
    io = IORoles(input=None, intermediate=None, output="stored_mb")
    spark_job = "TextGen.run"
    hadoop_main = EXAMPLES + "RandomTextWriter"

    def check_params(self, params, engine_kinds, config_names):
        if "hadoop" in engine_kinds:
            own = [k for k in ("plant", "plant_every", "vocabulary", "zipf") if params[k] != self.param(k).default]
            if own:
                return own[0], ("the hadoop engine runs Hadoop's RandomTextWriter, which has its own word list and plants "
                                "nothing; drop this field or run textgen on the spark engine only")
        if params["plant_every"] and not params["plant"]:
            return "plant", "plant_every is set but there is no `plant` string to plant"
        return None

    def data_bytes(self, params, input_bytes):
        return params["size"]

    def spark_params(self, req):
        p = req.params
        return {"bytes": p["size"], "tasks": generator_tasks(p["size"], p["tasks"]), "output": req.outputs,
                "vocabulary": p["vocabulary"], "zipf": p["zipf"], "plant": p["plant"], "plant_every": p["plant_every"],
                "codec": p["output_codec"]}

    def hadoop_command(self, req, mode):
        p = req.params
        # local mode runs a single map whatever is asked (LocalClientProtocolProvider): it must write it all
        maps = generator_tasks(p["size"], p["tasks"]) if mode == "yarn" else 1
        extra = {"mapreduce.randomtextwriter.totalbytes": p["size"], "mapreduce.randomtextwriter.bytespermap": -(-p["size"] // maps),
                 **output_codec_conf(p["output_codec"])}
        return extra, ["-outFormat", "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat", req.outputs[0]]

    def hadoop_result(self, log, req):
        rtw = log.groups.get("org.apache.hadoop.examples.RandomTextWriter$Counters", {})
        return {"bytes_generated": rtw["BYTES_WRITTEN"], "lines": rtw["RECORDS_WRITTEN"], "words": None, "planted": 0,
                "plant": "", "bytes_written": log.counters["Bytes Written"], "generator": "hadoop RandomTextWriter",
                "tasks": log.counters.get("Launched map tasks", log.maps_done() or 1)}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_generated"] / MB, wall_s), "stored_mb": job["bytes_written"] / MB, "lines": job["lines"],
             "tasks": job["tasks"]}
        if job["words"] is not None:  # Hadoop's RandomTextWriter does not count its words
            m["words"] = job["words"]
        keys = ("words", "lines", "planted", "plant", "bytes_generated", "bytes_written")
        return Measurement(m, {k: job[k] for k in keys} | {"generator": job.get("generator", "tierbench")})


class WordCount(Workload):
    name, title = "wordcount", "WordCount"
    doc = ("Counts the words of textgen's text with a map-side combiner and writes word<TAB>count lines. "
           "Fails the run when the counts do not total the words tierbench's textgen wrote (Hadoop's "
           "RandomTextWriter does not count them). Hadoop engine: Hadoop's WordCount example.")
    params = (SPLIT, Param("partitions", "count", 0, "reduce tasks = output files (0: one per input split)"), OUTPUT_CODEC)
    consumes, producer = "text", "textgen"
    produces = "wordcount-output"
    metrics = ("data_mb", "throughput_mb_s", "words", "distinct_words", "stored_mb", "map_tasks", "reduce_tasks")
    phases = ("map + combine", "reduce + write")
    # the shuffle carries the combined counts: small next to the input, and not measured by the job
    io = IORoles(input="data_mb", intermediate=None, output="stored_mb")
    verifies = True
    spark_job = "WordCount.run"
    hadoop_main = EXAMPLES + "WordCount"

    def data_bytes(self, params, input_bytes):
        return 0  # the counts: small next to the text

    def spark_params(self, req):
        p = req.params
        return {"input": req.inputs, "output": req.outputs, "split_bytes": p["split_size"], "partitions": p["partitions"],
                "codec": p["output_codec"]}

    def hadoop_command(self, req, mode):
        p = req.params
        extra = {**split_conf(p["split_size"]), **output_codec_conf(p["output_codec"])}
        if p["partitions"]:
            extra["mapreduce.job.reduces"] = p["partitions"]
        return extra, [req.inputs[0], req.outputs[0]]

    def hadoop_result(self, log, req):
        c = log.counters
        return {"words": c["Map output records"], "distinct_words": c["Reduce output records"], "bytes_read": c["Bytes Read"],
                "bytes_written": c["Bytes Written"], "map_tasks": c.get("Launched map tasks", log.splits()),
                "reduce_tasks": c.get("Launched reduce tasks", req.params["partitions"] or 1)}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_read"] / MB, wall_s), "words": job["words"], "distinct_words": job["distinct_words"],
             "stored_mb": job["bytes_written"] / MB, "map_tasks": job["map_tasks"], "reduce_tasks": job["reduce_tasks"]}
        failure = None
        if produced.get("words") is not None and job["words"] != produced["words"]:
            failure = f"WordCount: the counts total {job['words']} words, but textgen wrote {produced['words']}"
        return Measurement(m, {"words": job["words"], "distinct_words": job["distinct_words"]}, failure)


def java_quoted(literal: str) -> str:
    """`literal` as a Java regular expression matching it exactly (Pattern.quote's form): a `\\E` in it would
    otherwise end a plain `\\Q...\\E` early and make the rest an expression."""
    return "\\Q" + literal.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def grep_expected(pattern: str, plant: str | None, planted: int) -> int | None:
    """The matches grep must find in textgen's text, when that is knowable."""
    if plant and pattern == plant and not set(plant) <= TEXT_ALPHABET:
        return planted  # a plant with a character the text never has can only match where it was planted
    if not set(pattern) <= TEXT_ALPHABET and (not plant or pattern not in plant):
        return 0
    return None


class Grep(Workload):
    name, title = "grep", "Grep"
    doc = ("Scans textgen's text for a literal string, a pure read; reports bytes scanned and matches. "
           "tierbench's text has only a-z and spaces, so a pattern with any other character must find 0, "
           "and textgen's plant must be found exactly as often as it was planted. Hadoop engine: Hadoop's Grep "
           "example (two jobs: search and sort; the pattern is quoted as a literal).")
    params = (Param("pattern", "text", "tierbench-absent", "the literal string to look for"), SPLIT)
    consumes, producer = "text", "textgen"
    produces = "grep-output"  # hadoop engine: Hadoop's Grep example writes its counts here
    metrics = ("data_mb", "throughput_mb_s", "matches", "lines", "map_tasks")
    phases = ("scan",)
    io = IORoles(input="data_mb", intermediate=None, output=None)
    verifies = True
    spark_job = "Grep.run"
    hadoop_main = EXAMPLES + "Grep"

    def spark_params(self, req):
        return {"input": req.inputs, "pattern": req.params["pattern"], "split_bytes": req.params["split_size"]}

    def hadoop_command(self, req, mode):
        extra = split_conf(req.params["split_size"])
        if mode == "local":  # Grep's temporary dir is relative: keep it in the run's scratch (the cwd)
            extra["fs.defaultFS"] = "file:///"
        # Hadoop's Grep takes a regular expression; tierbench's pattern is a literal string
        return extra, [req.inputs[0], req.outputs[0], java_quoted(req.params["pattern"])]

    def hadoop_result(self, log, req):
        search = log.counters_of(0)  # job 1 of 2: the search
        return {"matches": search["Map output records"], "matching_lines": None, "lines": search["Map input records"],
                "bytes_read": search["Bytes Read"], "bytes_scanned": None, "pattern": req.params["pattern"],
                "map_tasks": search.get("Launched map tasks", log.splits())}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_read"] / MB, wall_s), "matches": job["matches"], "lines": job["lines"],
             "map_tasks": job["map_tasks"]}
        details = {k: job[k] for k in ("matches", "matching_lines", "bytes_scanned", "lines", "pattern")}
        # what the text can hold is known only for tierbench's own generator (Hadoop's draws from its own word list)
        ours = produced.get("generator", "tierbench") == "tierbench" if produced else False
        expected = grep_expected(job["pattern"], produced.get("plant"), produced.get("planted", 0)) if ours else None
        details["expected_matches"] = expected
        failure = None
        if expected is not None and job["matches"] != expected:
            failure = f"Grep: found {job['matches']} matches of {job['pattern']!r}, expected {expected}"
        elif "lines" in produced and job["lines"] != produced["lines"]:
            failure = f"Grep: scanned {job['lines']} lines, textgen wrote {produced['lines']}"
        return Measurement(m, details, failure)


WORKLOADS = (TextGen(), WordCount(), Grep())
