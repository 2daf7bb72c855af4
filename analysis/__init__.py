"""Analysis of testbed result folders: raw Locust CSVs + CPU samples -> per-step samples,
statistics (maxima, segment decomposition, clone scaling, bottleneck hints, calibration),
summary.json, plots and a self-contained report.html.

The result-folder format is specified in docs/results.md. Entry points:
`analysis.report.regenerate(folder)` (everything), `analysis.steps.compute(...)` (per-step
samples, usable live), `analysis.cli.main(argv)` (the command line).
"""

FORMAT_VERSION = 1
