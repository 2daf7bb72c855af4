"""Render, the analysis' last stage: a result folder's derived files — steps.csv, summary.json,
plots/*.png + *.svg and the self-contained report.html — from what the stages before made.

  report        an experiment's folder: everything regenerated from its raw files (regenerate)
  study_report  a study's folder, through its kind's module in analysis/studies/
  plots         the figures, each a matplotlib Figure made from plain data
  pages         the reports' HTML: the Jinja2 environment over templates/ and its filters
  timetable     the header's "Where the time went", from experiment.json "time"

Before it: analysis/summary.py (summary.json, as data). After it: the command lines that call
report.regenerate (analysis/cli.py, the runner in cli/testbed).
"""
