"""Shared paths for the analysis tests (sample data: see data/make_*.py).

This folder is named like the package it tests and has no __init__.py, so with pytest's default
import mode `tests/` lands on sys.path and `import analysis` could resolve to this folder as a
namespace package. Put the repository root on sys.path (a regular package found anywhere
on it wins over a namespace folder) and import the real package before any test.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.append(str(Path(__file__).resolve().parent))     # handmade_probe, beside this file
_early = sys.modules.get("analysis")
if _early is not None and getattr(_early, "__file__", None) is None:  # the namespace stand-in
    del sys.modules["analysis"]
import analysis  # noqa: E402,F401  (the package, imported first on purpose)
from analysis.load.locust_csv import HistoryRow  # noqa: E402
from analysis.steps import StepSample  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data() -> Path:
    return DATA


@pytest.fixture(scope="module")
def predict_handmade(tmp_path_factory) -> Path:
    """A copy of the hand-made prediction folder (data/make_predict.py), one per test module: tests
    that simulate write the simulation's cache (prediction-check.json) into the folder they check,
    never into the tracked one."""
    import shutil
    dest = tmp_path_factory.mktemp("predict") / "predict-handmade"
    shutil.copytree(DATA / "predict-handmade", dest)
    return dest


def _history(rates: list[int], start: int = 1000, users: int = 1, failures: list[int] | None = None):
    """One Aggregated row per second with cumulative counts growing by rates[i]."""
    rows, total, fails = [], 0, 0
    for i, r in enumerate(rates):
        total += r
        fails += (failures or [0] * len(rates))[i]
        rows.append(HistoryRow(start + i, users, total, fails, 10.0, 20.0, 30.0))
    return rows


def _step(index: int, users: int, throughput: float | None, flags=None, cpu=None, host=None,
          replicas=None) -> StepSample:
    """A measured step with the given throughput, flags and CPU per tier."""
    s = StepSample("r", index, users, 0.0, 0.0, 1.0, 10.0, throughput=throughput,
                   flags=dict(flags or {}), cpu=dict(cpu or {}), host_cpu=host)
    s.replicas = dict(replicas or {t: 1 for t in (cpu or {})})
    return s


@pytest.fixture(scope="session")
def history():
    return _history


@pytest.fixture(scope="session")
def step():
    return _step
