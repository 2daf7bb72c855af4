"""`python -m analysis ...` runs the analysis command line."""
import sys

from analysis.cli import main

sys.exit(main())
