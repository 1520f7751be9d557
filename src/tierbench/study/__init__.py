"""A study: the plan run one run at a time (runner.py), each through the run lifecycle's steps (lifecycle.py),
reading the study from a frozen run context (context.py); around them the configurations' own commands
(config_commands.py), the warm-up of a fresh engine application (warmup.py), the machine's free page reporting
(host_memory.py) and the devices' ceilings (probe.py). Nothing is imported here: `tierbench report` and the
analysis must not pull in the engines."""
