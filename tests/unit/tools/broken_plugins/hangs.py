"""Broken on purpose: hangs at import (long enough to pass any import timeout used in tests)."""

import time

time.sleep(30)
