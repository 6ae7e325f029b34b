"""Broken on purpose: calls sys.exit at import."""

import sys

sys.exit(3)
