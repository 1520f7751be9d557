"""Real local servers on 127.0.0.1, started and stopped by `tierbench services` and by the tests: one module
each, found by registry.py (SERVICES, name -> class)."""
