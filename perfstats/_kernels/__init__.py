"""numba kernels: float64 arrays in, arrays out; no validation, no Python objects.

All kernels are compiled with ``cache=True`` so a machine pays numba's
compile cost once, not once per process. Random kernels use the
counter-based streams of :mod:`perfstats._kernels.random`, one stream per
resample, so results do not depend on the number of threads.
"""
