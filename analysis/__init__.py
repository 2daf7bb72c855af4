"""Analysis of testbed result folders: the raw files a run leaves -> summary.json, plots and a
self-contained report.html. The result-folder format is specified in docs/results.md.

The pipeline, one stage per folder (or module); a stage imports only the stages above it:

  result folder    experiment.json, runs/<id>/: Locust CSVs, cpu.csv, steps.jsonl, thread dumps
       |
  load/            the raw files read into plain data (folder.load -> ResultFolder), losses noted
       |
  steps.py         each run cut into per-step samples over the steps' measurement windows
       |
  measure/         what the steps measured: maxima, segment throughputs, clone scaling, capacity,
       |           the bottleneck hint, CPU per node, the front's demand, the traces' decomposition
  judge/           the findings: claims held against the published figures, the calibration
       |           experiment's verdicts, the regime a run was in, the classic report beside it
  predict/         the queueing model fitted to the baseline, and its predictions of the rest
       |
  summary.py       summary.json: everything above, as data
       |
  render/          steps.csv, plots/ and report.html (render/templates/)
       |
  cli.py           the command line: python -m analysis report | predict | traces | analyze

  studies/         a study's folder (samples.jsonl, no Locust runs): one module per study kind,
                   measured and judged there; render/study_report.py loads it and renders it
  stats.py         the statistics every stage shares: medians, spreads, 95 % intervals

Entry points: `analysis.render.report.regenerate(folder)` (everything), `analysis.steps.compute(...)`
(per-step samples, usable live), `analysis.cli.main(argv)` (the command line).
"""

FORMAT_VERSION = 1
