"""contextrot's reporting layer: a pytest plugin over a results store, analysis, the gate and renderers."""
