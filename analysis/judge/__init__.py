"""Judge, the analysis' fourth stage: what the measured figures say, as findings — a claim, this
run's figure, the published figure and a verdict — each resting on a section of docs/method.md.

  findings     the Finding record and its verdicts; method: docs/method.md's sections
  published    the published figures (published.toml), the one place they are written;
               method_tables prints them as docs/method.md's tables
  classic      the classic findings of the segment and clone-scaling experiments
  calibration  the calibration experiment: the segment law checked against known demands
  regime       was a run in the regime its finding needs, or did the machine set its maximum?
  sidebyside   the classic report beside this run, figure by figure
  agreement, repeats   several runs held against each other and against the classic report

Before it: analysis/measure/. After it: analysis/predict/, then analysis/summary.py, which puts
the findings into summary.json. The study kinds (analysis/studies/) judge with it too.
"""
