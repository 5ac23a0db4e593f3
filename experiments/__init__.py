"""Experiments: personas, the deterministic proof (``python -m experiments.run_experiment``),
ablations, transfer and the sweep. Uses both ``skillopt_sleep`` and ``skillopt_core``."""
