"""Load, the analysis' first stage: a result folder's raw files read into plain data, what is
missing or cut noted in `lost`, never fatal (folder.load -> ResultFolder of Runs).

One module per kind of file: folder (experiment.json, runs/<id>/run.json, the whole folder),
locust_csv (Locust's --csv files), cpu (cpu.csv), steplog (steps.jsonl), faults (faults.jsonl),
hostspeed (speed.csv), threaddump (jstack output); probes, the runner's probes kept apart from the
runs (probes/); settings holds the analysis' thresholds that experiment.json may set.

Before it: the runner that wrote the folder (cli/testbed/run). After it: analysis/steps.py.
"""
