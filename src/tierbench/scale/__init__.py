"""The scale model: a small study on this machine that keeps a full-size job's ratios on a target cluster
(docs/scale-model.md). Everything of it lives here: deriving the small study from a target (model.py, derive.py),
its calibration (calibration.py), the page cache budget (memory_budget.py), the emulated drives' shared time
(shared_time.py), pace following (pace_follow.py), the pace check and its analysis (pace.py), and the sizes
`advise` and `predict` take from it (target.py). The study sees it through two seams only: the emulated devices'
profiles of each configuration and the run hooks it stacks (study/hooks.py)."""
