"""Re-make tests/analysis/data/predict-handmade/prediction-check.json, the simulation's check of
the predicted points that the prediction tests ask for (analysis/predict/section.py `_checks`,
keyed by the model, the answer and the simulation code's fingerprint):

    .venv/bin/python tests/analysis/data/make_check_cache.py

Needed after a change to the solver or to the simulation code (simulate.py, check.py, model.py):
then every key changes and test_prediction_check_cache.py says the cache misses points. The
cache is emptied, the folder's own points are checked, then the prediction tests run (each
simulates what it asks for in its copy of the folder, under a temporary folder) and every point
they checked is kept. A few minutes on two cores."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TESTS = ["tests/analysis/test_prediction_*.py", "tests/analysis/test_analysis_cli.py"]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from analysis.load.folder import load
    from analysis.predict import section
    from analysis.steps import run_steps
    cache = HERE / "predict-handmade" / section.CHECK_FILE
    cache.write_text("{}\n")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "predict-handmade"
        shutil.copytree(HERE / "predict-handmade", folder)
        result = load(folder)
        section.build(result, run_steps(result))          # the folder's own points
        merged = json.loads((folder / section.CHECK_FILE).read_text())
        base = Path(tmp) / "pytest"
        files = sorted(str(p) for pattern in TESTS for p in ROOT.glob(pattern)
                       if p.name != "test_prediction_check_cache.py")     # it checks the cache made here
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={base}",
                        *files], cwd=ROOT, check=True)
        for f in base.rglob(section.CHECK_FILE):
            merged.update(json.loads(f.read_text()))
    cache.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")
    print(f"{cache.relative_to(ROOT)}: {len(merged)} points")


if __name__ == "__main__":
    main()
