"""One module per study kind (serialization, rpc, ipc, servers): what its samples mean.

A study's result folder holds samples.jsonl, not Locust runs, so it skips the load, steps and
measure stages: analysis/render/study_report.py reads the folder and hands the samples to their
kind's module here, which summarizes them and judges them with analysis/judge/ (findings, method,
published). Before it: the study runner that wrote samples.jsonl (cli/testbed/studies). After it:
analysis/render/study_report.py renders the summary; its docstring states the contract every
module here follows."""
