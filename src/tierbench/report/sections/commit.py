"""Output commit: the job's and the tasks' commit times, for jobs whose output went through a committer."""

from ...analysis.tables import commit_times
from ..context import ReportContext
from ..document import Paragraph, Section, Table

COMMIT_HEAD = ["workload", "config", "committer", "wall s (median)", "job commit s", "task commits s (sum)",
               "job commit share of wall"]


def sections(ctx: ReportContext) -> list[Section]:
    rows = [[c.workload, c.config, c.committer, f"{c.wall_s:.2f}", f"{c.job_commit_s:.3f}", f"{c.task_commits_s:.3f}",
             f"{c.job_commit_share:.0%}" if c.job_commit_share is not None else "–"]
            for c in commit_times(ctx.runs, ctx.configs, ctx.workloads)]
    if not rows:
        return []
    return [Section("Output commit", 2, [
        Paragraph("Jobs whose output went through a committer (storage `committer`): the driver's job commit and the "
                  "tasks' commits added up (they run in parallel), median over runs, both inside the wall time. "
                  "file-v1 renames each task's files twice (task and job commit), file-v2 once; on S3 a rename is a "
                  "copy. S3A's directory committer uploads at task commit and the magic committer writes pending "
                  "uploads; both complete them at job commit, renaming nothing.", muted=True),
        Table(COMMIT_HEAD, rows)])]
