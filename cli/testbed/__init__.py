"""The SOAP testbed's command line: build, start, scale and load a multi-tier SOAP stack."""
import os
from pathlib import Path

ROOT = Path(os.environ.get("TESTBED_ROOT") or Path(__file__).resolve().parents[2])
