"""The report's sections, one module each, in the order the report shows them.

Each module has `sections(context) -> list[Section]`: the sections it makes from the ReportContext (report/context.py),
none when the study has nothing for it, several where one module makes a section per thing (a chart, a sweep). A
section formats what analysis/ computed; it computes no figure of its own. Adding a section is adding a module here.
"""

from . import (answer, ceilings, cloud, commit, comparisons, cost, environment, findings, gateways, intermediate, lakehouse, machine,
               mix, nodes, pipelines, profile, runs, scale, sql, storage, summary, sweeps, whatif, working_set)

ORDER = (answer, comparisons, findings, pipelines, sweeps, sql, lakehouse, commit, gateways, cost, mix, summary, profile, nodes, intermediate,
         working_set, scale, storage, machine, ceilings, whatif, cloud, environment, runs)
