"""Print the numpy SIMD features to disable for a second, different run of the notebooks.

numpy compiles some loops several times, once per CPU feature level, and picks
the best one the CPU at hand supports (``np.show_runtime()`` lists them under
"found"). The last bits of a float sum or power differ between those code paths,
so a stored output that shows them passes on one machine and fails on another.
``make test`` therefore runs the notebooks twice: as this machine runs them, and
with every dispatched feature this CPU has switched off, which makes numpy use
its baseline code, as a CPU without those features would.

numpy refuses to disable a feature that is not dispatched on the CPU at hand, so
the list is read from numpy itself, never written down. Usage::

    python tools/simd_features.py
    # X86_V3 X86_V4 AVX512_ICL AVX512_SPR           (on a CPU with AVX-512)
    NPY_DISABLE_CPU_FEATURES="$(python tools/simd_features.py)" python -m pytest --nbval book

When the CPU has no dispatched feature beyond numpy's baseline, nothing can be
switched: it prints nothing on stdout, says so on stderr, and exits 0, so the
caller can skip the second run and report why.
"""

from __future__ import annotations

import os
import sys

import numpy as np

try:  # numpy >= 2
    from numpy._core import _multiarray_umath as _umath
except ImportError:  # numpy 1.x
    from numpy.core import _multiarray_umath as _umath


def features_to_disable(dispatch: list[str], available: dict[str, bool]) -> list[str]:
    """The dispatched features that this CPU has, in numpy's dispatch order.

    Disabling all of them sends numpy back to its baseline code.

    >>> features_to_disable(["X86_V3", "X86_V4", "AVX512_ICL"], {"X86_V3": True, "X86_V4": False})
    ['X86_V3']
    >>> features_to_disable(["X86_V3"], {"X86_V3": False})
    []
    """
    return [name for name in dispatch if available.get(name, False)]


def main() -> int:
    """Print the features to disable, space-separated, or explain on stderr why there are none."""
    features = features_to_disable(list(_umath.__cpu_dispatch__), dict(_umath.__cpu_features__))
    if features:
        print(" ".join(features))
    else:
        baseline = " ".join(_umath.__cpu_baseline__) or "none"
        disabled = os.environ.get("NPY_DISABLE_CPU_FEATURES", "").strip()
        already = f" (NPY_DISABLE_CPU_FEATURES={disabled!r} is set)" if disabled else ""
        print(
            f"numpy {np.__version__} dispatches no SIMD code beyond its baseline ({baseline}) "
            f"here{already}: there is no second dispatch to run the notebooks with",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
