"""The generator's state as PyTorch gives it: a uint8 CPU tensor (get_rng_state,
Generator.get_state) that set_rng_state / set_state take back exactly, that a checkpoint
saved with microtorch.save (and read by torch.load) holds like any tensor, and that is
refused with PyTorch's error types when it is not such a state."""

from __future__ import annotations

import io

import pytest

import microtorch

LIBS = ["microtorch", "torch"]


def _lib(name: str):
    return microtorch if name == "microtorch" else pytest.importorskip("torch")


@pytest.mark.parametrize("lib_name", LIBS)
def test_state_is_a_uint8_cpu_tensor_that_resumes_the_stream(lib_name: str) -> None:
    lib = _lib(lib_name)
    lib.manual_seed(5)
    lib.randn(3)  # (a normal draw may leave a cached value in the state)
    state = lib.get_rng_state()
    assert isinstance(state, lib.Tensor) and state.dtype is lib.uint8 and state.ndim == 1
    assert state.device.type == "cpu"
    first = lib.rand(4).tolist()
    lib.manual_seed(7)
    lib.set_rng_state(state)
    assert lib.rand(4).tolist() == first
    assert lib.initial_seed() == 5  # the state carries the seed too
    g = lib.Generator().manual_seed(11)
    saved = g.get_state()
    drawn = lib.randint(0, 100, (6,), generator=g).tolist()
    assert g.set_state(saved) is g and lib.randint(0, 100, (6,), generator=g).tolist() == drawn
    assert g.initial_seed() == 11


def test_state_saved_in_a_checkpoint_resumes_after_load() -> None:
    """microtorch.save writes the state as a tensor; microtorch.load and torch.load read it."""
    microtorch.manual_seed(3)
    buffer = io.BytesIO()
    microtorch.save({"rng_state": microtorch.get_rng_state()}, buffer)
    after = microtorch.rand(5).tolist()
    buffer.seek(0)
    microtorch.manual_seed(0)
    microtorch.set_rng_state(microtorch.load(buffer)["rng_state"])
    assert microtorch.rand(5).tolist() == after
    torch = pytest.importorskip("torch")
    buffer.seek(0)
    theirs = torch.load(buffer)["rng_state"]
    assert theirs.dtype is torch.uint8 and tuple(theirs.shape) == (48,)


def test_the_state_holds_numpys_cached_half_draw() -> None:
    """A 32-bit draw leaves half of a 64-bit one cached; the state must keep it."""
    microtorch.manual_seed(2)
    rng = microtorch.default_generator.rng
    rng.integers(0, 2**32, dtype="uint32")
    state = microtorch.get_rng_state()
    after = rng.integers(0, 2**32, size=4, dtype="uint32").tolist()
    microtorch.set_rng_state(state)
    assert (
        microtorch.default_generator.rng.integers(0, 2**32, size=4, dtype="uint32").tolist()
        == after
    )


def test_an_earlier_versions_dict_state_still_loads() -> None:
    """Checkpoints written before the state was a tensor hold NumPy's PCG64 dict."""
    microtorch.manual_seed(4)
    old_form = microtorch.default_generator.rng.bit_generator.state
    after = microtorch.rand(3).tolist()
    microtorch.set_rng_state(old_form)
    assert microtorch.rand(3).tolist() == after


def _bad_states(lib):
    state = lib.get_rng_state()
    return {
        "shorter": (state[:-1], RuntimeError),
        "float": (state.float(), TypeError),
        "int8": (state.to(lib.int8), TypeError),
        "list": (state.tolist(), TypeError),
        "not contiguous": (state[: state.numel() // 2 * 2].view(2, -1).t(), RuntimeError),
    }


@pytest.mark.parametrize("case", ["shorter", "float", "int8", "list", "not contiguous"])
@pytest.mark.parametrize("lib_name", LIBS)
def test_a_state_that_is_not_one_is_refused_as_pytorch(lib_name: str, case: str) -> None:
    lib = _lib(lib_name)
    bad, error = _bad_states(lib)[case]
    before = lib.get_rng_state()
    with pytest.raises(error):
        lib.set_rng_state(bad)
    with pytest.raises(error):
        lib.Generator().set_state(bad)
    assert lib.equal(lib.get_rng_state(), before)  # nothing changed


@pytest.mark.parametrize("lib_name", LIBS)
def test_a_multi_dim_view_of_a_state_is_accepted(lib_name: str) -> None:
    lib = _lib(lib_name)
    state = lib.get_rng_state()
    lib.set_rng_state(state.view(2, -1))
    assert lib.equal(lib.get_rng_state(), state)


def test_a_state_no_generator_can_be_in_is_refused() -> None:
    with pytest.raises(RuntimeError, match="Invalid PCG64 state"):
        microtorch.set_rng_state(microtorch.zeros(48, dtype=microtorch.uint8))


@pytest.mark.parametrize("lib_name", LIBS)
def test_seed_argument_types_as_pytorch(lib_name: str) -> None:
    """torch.manual_seed converts with int(); Generator.manual_seed wants an int."""
    lib = _lib(lib_name)
    assert lib.manual_seed(2.7).initial_seed() == 2
    assert lib.manual_seed(lib.tensor(3)).initial_seed() == 3
    for bad in (1.5, True, lib.tensor(3)):
        with pytest.raises(RuntimeError, match="manual_seed"):
            lib.Generator().manual_seed(bad)
    with pytest.raises(ValueError):
        lib.Generator().manual_seed(2**64)
    with pytest.raises(TypeError):
        lib.Generator().set_state(new_state=lib.get_rng_state())
    fresh = lib.seed()
    assert lib.initial_seed() == fresh
    g = lib.Generator()
    assert g.seed() == g.initial_seed()
    lib.manual_seed(0)
