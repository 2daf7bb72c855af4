"""The reliability tests' helpers (slowclient.py) sit beside them."""
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))
