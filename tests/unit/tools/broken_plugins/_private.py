raise RuntimeError("never imported")
