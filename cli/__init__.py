"""The ``sampan`` command-line tool (inspect, run, bench saved models)."""
