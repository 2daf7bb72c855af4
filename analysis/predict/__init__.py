"""Predict before measuring: a queueing model of the stack, fitted to a result folder's
baseline run(s), that predicts other configurations (docs/predict.md). The analysis' fifth
stage: before it, analysis/measure/ and analysis/judge/ (the baseline's steps, its clone scaling
and the regime it ran in); after it, analysis/summary.py (summary.json "prediction") and
analysis/render/ (the report's section and figures, from report_section and figures here).

  network           exact product-form closed networks (convolution, in logarithms)
  chain             the model's exact Markov chain where it is small enough
  surrogate         the method of surrogate delays, the fallback
  model             the model itself and which solution applies
  simulate          a discrete-event simulation of the same model (simpy), the check
  baseline_demands  each tier's demands measured in the baseline: the model's inputs
  fit               the model fitted to those demands, for a configuration
  forecast          every configuration of an experiment, with the naive baselines
  target            the smallest configuration reaching a throughput
  section           summary.json "prediction"; report_section its HTML; figures its plots
  command           ./testbed predict; check_run the experiment that checks a --target answer
  validate          the validation over several result folders (the criteria of docs/predict.md)
  line_check        the cross-check against LINE (not a dependency)
"""
