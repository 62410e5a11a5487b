"""Put this folder (and the repository root) on PYTHONPATH and ``import cupy`` gives
tests/fake_cupy, in this process and in every worker it starts:

    PYTHONPATH=tests/fake_cupy/as_cupy:. python benchmarks/bench_train.py --device cuda \
        --preset tiny --no-torch --repeats 1 --steps 2

a dry run of a GPU script's code paths on the CPU (slow: the kernels run as fibers)."""

from tests import fake_cupy

fake_cupy.install()
