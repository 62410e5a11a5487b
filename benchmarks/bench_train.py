"""One GPT training step, microtorch vs PyTorch: forward, backward, clip_grad_norm_, AdamW step,
zero_grad, for the tiny, baby and shakespeare presets of models/presets.py.

    python benchmarks/bench_train.py                          # tiny + baby on the CPU
    python benchmarks/bench_train.py --preset baby --repeats 5 --json baby.json
    python benchmarks/bench_train.py --preset shakespeare     # CPU: 3 timed steps only
    python benchmarks/bench_train.py --device cuda            # tiny, baby, shakespeare on a GPU
    python benchmarks/bench_train.py --preset baby --profile 25   # + where microtorch's time goes

Both frameworks train the same model on the same batches: a fresh microtorch process builds
``models.transformer.GPT`` (seeded GPT-2 init) and writes its initial weights; the PyTorch
model below (the same architecture, parameter names and AdamW groups) loads them, so with
dropout 0 the two losses agree step by step (the table shows the largest difference). The
batches are random token ids from a seeded NumPy generator: the step time does not depend
on the text.

Every measurement runs in a fresh process with one framework and ``--threads`` threads
(OMP/OPENBLAS/MKL_NUM_THREADS and torch.set_num_threads); microtorch and PyTorch workers
alternate, ``--repeats`` times, and the table quotes the median over repeats with the spread
(min..max). Inside a worker the time of a step is the median over ``--steps`` timed steps
after ``--warmup`` untimed ones.

Figures
- ms/step, tokens/s = batch_size * block_size / step time.
- FLOP per step, counted analytically (the PaLM / nanoGPT formula):
      6 * N * tokens  +  12 * n_layer * n_embd * block_size * tokens
  N = parameters that take part in a matrix product: all but the position embedding (the
  token embedding counts once, as the tied output head). 6 = 2 (multiply-add) x 3 (forward,
  and the backward's two products); the second term is attention's QK^T and PV products
  (full T x T, not halved for the causal mask). Bias, LayerNorm, softmax, GELU and the
  optimizer are not counted.
- achieved GFLOP/s = FLOP per step / step time, and its fraction of the machine's float32
  matmul rate, measured in every worker and pooled (median): on the CPU NumPy's
  1024 x 1024 @ 1024 x 1024 with the same thread count; on CUDA a 4096 x 4096 product with
  CuPy (microtorch workers) or PyTorch (PyTorch workers), TF32 off (on with --tf32).
- peak memory: the worker's resident-set high-water mark at the end (VmHWM in
  /proc/self/status on Linux, resource.getrusage ru_maxrss elsewhere), which includes the
  imported framework itself; and "train MB" = that high-water mark minus the resident set
  just before the first step (what training adds on top of the library and the built model).
  On CUDA: torch.cuda.max_memory_allocated / CuPy's memory pool total_bytes.
- on CUDA, host ms/step: the time step() takes to return, before the synchronize that ends
  the timed step, i.e. the host's time to launch the step's kernels. Near the step time, the
  GPU waits for the host (per-launch overhead dominates); well below it, the GPU is busy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

VOCAB_SIZE = 65  # Tiny Shakespeare's character vocabulary
SEED = 1337
LEARNING_RATE, BETAS, WEIGHT_DECAY, GRAD_CLIP = 1e-3, (0.9, 0.99), 0.1, 1.0


# ----------------------------------------------------------------------------- shared setup
def preset_model(name: str) -> dict:
    """The model and batch settings of a preset (imported without microtorch or torch)."""
    sys.path.insert(0, str(_common.REPO))
    from models.presets import PRESETS

    p = PRESETS[name]
    return {"vocab_size": VOCAB_SIZE, "n_layer": p["n_layer"], "n_head": p["n_head"],
            "n_embd": p["n_embd"], "block_size": p["block_size"], "dropout": p["dropout"],
            "bias": p.get("bias", True), "batch_size": p["batch_size"]}  # fmt: skip


def make_batches(cfg: dict, count: int) -> list:
    import numpy

    rng = numpy.random.default_rng(SEED)
    shape = (cfg["batch_size"], cfg["block_size"])
    return [(rng.integers(0, cfg["vocab_size"], shape), rng.integers(0, cfg["vocab_size"], shape))
            for _ in range(count)]  # fmt: skip


def flops_per_step(cfg: dict, n_matmul_params: int) -> float:
    tokens = cfg["batch_size"] * cfg["block_size"]
    attention = 12 * cfg["n_layer"] * cfg["n_embd"] * cfg["block_size"]
    return tokens * (6 * n_matmul_params + attention)


def rss_mb() -> float:
    """Current resident set of this process in MB (Linux /proc; 0 elsewhere)."""
    import os

    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        return 0.0


def peak_rss_mb() -> float:
    """This process's resident-set high-water mark in MB: VmHWM from /proc/self/status on
    Linux. (getrusage's ru_maxrss is not used there: a child process inherits its parent's
    high-water mark across fork + exec, so a worker would report at least the parent's RSS.)"""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB else


# ----------------------------------------------------------------------------- PyTorch model
def torch_gpt(cfg: dict) -> Any:
    """The same GPT as models/transformer.py, in PyTorch, with the same parameter names."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    C, nh, bias = cfg["n_embd"], cfg["n_head"], cfg["bias"]

    class CausalSelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c_attn = nn.Linear(C, 3 * C, bias=bias)
            self.c_proj = nn.Linear(C, C, bias=bias)
            self.resid_dropout = nn.Dropout(cfg["dropout"])

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(B, T, nh, C // nh).transpose(1, 2)
            k = k.view(B, T, nh, C // nh).transpose(1, 2)
            v = v.view(B, T, nh, C // nh).transpose(1, 2)
            p = cfg["dropout"] if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
            y = y.transpose(1, 2).reshape(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c_fc = nn.Linear(C, 4 * C, bias=bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * C, C, bias=bias)
            self.dropout = nn.Dropout(cfg["dropout"])

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln_1 = nn.LayerNorm(C, bias=bias)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(C, bias=bias)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wte = nn.Embedding(cfg["vocab_size"], C)
            self.wpe = nn.Embedding(cfg["block_size"], C)
            self.drop = nn.Dropout(cfg["dropout"])
            self.h = nn.ModuleList([Block() for _ in range(cfg["n_layer"])])
            self.ln_f = nn.LayerNorm(C, bias=bias)
            self.lm_head = nn.Linear(C, cfg["vocab_size"], bias=False)
            self.lm_head.weight = self.wte.weight

        def forward(self, idx, targets):
            B, T = idx.shape
            pos = torch.arange(T, device=idx.device)
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return logits, F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T))

    return GPT()


# ----------------------------------------------------------------------------- the workers
def make_init(args: argparse.Namespace) -> dict:
    """microtorch: build the seeded GPT and save its initial weights for both frameworks."""
    import numpy

    import microtorch
    from models.transformer import GPT, GPTConfig

    cfg = preset_model(args.preset)
    microtorch.manual_seed(SEED)
    model = GPT(GPTConfig(**{k: v for k, v in cfg.items() if k != "batch_size"}))
    state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
    numpy.savez(args.init, **state)
    return {"n_params": model.num_params(), "n_matmul_params": model.num_params(non_embedding=True)}


def train_worker(args: argparse.Namespace) -> dict:
    import numpy

    cfg = preset_model(args.preset)
    init = dict(numpy.load(args.init))
    batches = make_batches(cfg, args.warmup + args.steps)
    if args.tf32:  # before the matmul rate is measured, so that it is the TF32 rate
        if args.framework == "torch":
            import torch

            torch.backends.cuda.matmul.allow_tf32 = True
        else:
            import microtorch

            microtorch.set_float32_matmul_precision("high")
            microtorch.backend.as_device(args.device)  # loads CuPy, which takes the setting
    if args.device == "cpu":
        matmul_gflops = _common.measure_matmul_gflops()
    else:
        matmul_gflops = _common.measure_cuda_matmul_gflops(args.framework)

    if args.framework == "torch":
        import torch

        torch.set_num_threads(args.threads)
        torch.manual_seed(SEED)
        lib = torch
        model = torch_gpt(cfg)
        missing = model.load_state_dict({k: torch.tensor(v) for k, v in init.items()})
        assert not missing.missing_keys and not missing.unexpected_keys, missing
        model.to(args.device)
        params = list(dict(model.named_parameters()).values())
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": WEIGHT_DECAY},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]  # fmt: skip
        optimizer = torch.optim.AdamW(groups, lr=LEARNING_RATE, betas=BETAS)
        sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
        if args.device == "cuda":
            torch.cuda.reset_peak_memory_stats()
    else:
        import microtorch
        from models.transformer import GPT, GPTConfig

        lib = microtorch
        microtorch.manual_seed(SEED)
        model = GPT(GPTConfig(**{k: v for k, v in cfg.items() if k != "batch_size"}))
        model.load_state_dict({k: microtorch.tensor(v) for k, v in init.items()})
        model.to(args.device)
        optimizer = model.configure_optimizers(WEIGHT_DECAY, LEARNING_RATE, BETAS, args.device)
        params = list(model.parameters())
        sync = microtorch.cuda.synchronize

    data = [(lib.tensor(x, device=args.device), lib.tensor(y, device=args.device))
            for x, y in batches]  # fmt: skip
    model.train()

    def step(i: int) -> Any:
        x, y = data[i]
        _, loss = model(x, y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(params, GRAD_CLIP)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    rss_before = rss_mb()
    losses, times, host_times = [], [], []
    profiler = None
    for i in range(args.warmup + args.steps):
        if i == args.warmup and args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        sync()
        start = time.perf_counter()
        loss = step(i)
        issued = time.perf_counter() - start  # on a GPU: the host's time to launch the work
        sync()
        elapsed = time.perf_counter() - start
        losses.append(float(loss.item()))  # after the timing: the host read is not timed
        if i >= args.warmup:
            times.append(elapsed)
            host_times.append(issued)
    result = {
        "step_s": statistics.median(times),
        "host_s": statistics.median(host_times),
        "step_times_s": times,
        "losses": losses,
        "matmul_gflops": matmul_gflops,
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss_mb(),
    }
    if args.device == "cuda":
        if args.framework == "torch":
            result["gpu_peak_mb"] = lib.cuda.max_memory_allocated() / 2**20
        else:
            import cupy

            result["gpu_peak_mb"] = cupy.get_default_memory_pool().total_bytes() / 2**20
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(args.profile)
        # then one more step under microtorch.profiler: the time of each op, forward and
        # backward (on a GPU, each op's own GPU time: the profiler waits for it around each op)
        activities = [lib.profiler.ProfilerActivity.CPU]
        if args.device == "cuda":
            activities.append(lib.profiler.ProfilerActivity.CUDA)
        with lib.profiler.profile(activities=activities) as ops:
            step(0)
        sort_by = "self_cuda_time_total" if args.device == "cuda" else "self_cpu_time_total"
        table = ops.key_averages().table(sort_by=sort_by, row_limit=args.profile)
        result["profile"] = text.getvalue() + "\nper op, one step (microtorch.profiler):\n" + table
    return result


# ----------------------------------------------------------------------------- the parent
DEFAULT_STEPS = {"tiny": 30, "baby": 30, "shakespeare": 20}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--preset", nargs="+", choices=["tiny", "baby", "shakespeare"],
                        help="default: tiny baby on cpu; tiny baby shakespeare on cuda")  # fmt: skip
    _common.add_comparison_args(parser)
    parser.add_argument(
        "--steps",
        type=int,
        help="timed steps per worker (default 30; shakespeare: 20 on cuda, 3 on cpu)",
    )
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also run one profiled microtorch worker and print its top N functions")  # fmt: skip
    parser.add_argument("--tf32", action="store_true",
                        help="on CUDA, let float32 products use TF32 tensor cores in both "
                        "frameworks (PyTorch: every product; microtorch through CuPy: the 2-D "
                        "ones, i.e. the Linear layers). Default: float32 throughout")  # fmt: skip
    parser.add_argument("--framework", choices=["microtorch", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--init", help=argparse.SUPPRESS)
    parser.add_argument("--make-init", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-json", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker_json:  # inside a worker process
        import json

        sys.path.insert(0, str(_common.REPO))
        args.preset = args.preset[0]
        result = make_init(args) if args.make_init else train_worker(args)
        Path(args.worker_json).write_text(json.dumps(result))
        return

    presets = args.preset or (
        ["tiny", "baby", "shakespeare"] if args.device == "cuda" else ["tiny", "baby"]
    )
    if args.device == "cpu" and args.preset is None:
        print("shakespeare preset skipped on the CPU (pass --preset shakespeare for a few steps)")
    frameworks, info = _common.frameworks_and_machine(args)

    import tempfile

    script = Path(__file__).resolve()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for preset in presets:
            steps = args.steps or (3 if preset == "shakespeare" and args.device == "cpu"
                                   else DEFAULT_STEPS[preset])  # fmt: skip
            init = str(Path(tmp) / f"{preset}_init.npz")
            base = ["--preset", preset, "--device", args.device, "--threads", str(args.threads),
                    "--init", init] + (["--tf32"] if args.tf32 else [])  # fmt: skip
            meta = _common.run_worker(script, [*base, "--make-init"], args.threads)
            run_args = [*base, "--steps", str(steps), "--warmup", str(args.warmup)]
            runs: dict[str, list] = {f: [] for f in frameworks}
            for r in range(args.repeats):
                order = frameworks if r % 2 == 0 else frameworks[::-1]
                for f in order:
                    print(f"  {preset}: repeat {r + 1}/{args.repeats}: {f} ...", end="", flush=True)
                    runs[f].append(
                        _common.run_worker(script, [*run_args, "--framework", f], args.threads)
                    )
                    # each result as it comes: a run cut short still shows what it measured
                    step_s, tokens = runs[f][-1]["step_s"], tokens_per_step(preset)
                    print(
                        f" {step_s * 1e3:.1f} ms/step, {tokens / step_s:,.0f} tokens/s", flush=True
                    )
            profile = None
            if args.profile:
                print(f"  {preset}: profiled microtorch worker ...", flush=True)
                prof = _common.run_worker(
                    script, [*run_args, "--framework", "microtorch", "--profile", str(args.profile)],
                    args.threads,
                )  # fmt: skip
                profile = prof["profile"]
            results[preset] = summarize(preset, meta, runs, steps, profile)

    print_summary(results, frameworks, args.device)
    if args.tf32:
        print("(--tf32: float32 products in TF32, PyTorch's all of them, CuPy's the 2-D ones)")
    for preset, r in results.items():
        if r.get("profile"):
            print(f"\nmicrotorch profile, {preset} ({r['steps']} steps, sorted by own time):")
            print(r["profile"])
    _common.write_json(args.json, {"machine": info, "args": vars(args), "results": results})


def tokens_per_step(preset: str) -> int:
    cfg = preset_model(preset)
    return cfg["batch_size"] * cfg["block_size"]


def summarize(preset: str, meta: dict, runs: dict, steps: int, profile: str | None) -> dict:
    cfg = preset_model(preset)
    flops = flops_per_step(cfg, meta["n_matmul_params"])
    tokens = tokens_per_step(preset)
    out: dict[str, Any] = {"config": cfg, "n_params": meta["n_params"],
                           "n_matmul_params": meta["n_matmul_params"], "flop_per_step": flops,
                           "tokens_per_step": tokens, "steps": steps, "profile": profile}  # fmt: skip
    # NumPy's matmul rate, measured in every worker of both frameworks (the same machine)
    rates = [r["matmul_gflops"] for reps in runs.values() for r in reps if r["matmul_gflops"]]
    if rates:
        out["matmul_gflops"] = _common.median_spread(rates)
    for f, reps in runs.items():
        step = [r["step_s"] for r in reps]
        entry = {
            "ms_per_step": _common.median_spread([s * 1e3 for s in step]),
            "tokens_per_s": _common.median_spread([tokens / s for s in step]),
            "gflops": _common.median_spread([flops / s / 1e9 for s in step]),
            "peak_rss_mb": _common.median_spread([r["peak_rss_mb"] for r in reps]),
            "train_mb": _common.median_spread(
                [max(r["peak_rss_mb"] - r["rss_before_mb"], 0.0) for r in reps]
            ),
            "losses": reps[0]["losses"],
        }
        if rates:
            entry["fraction_of_matmul"] = entry["gflops"]["median"] / statistics.median(rates)
        if "gpu_peak_mb" in reps[0]:
            entry["gpu_peak_mb"] = _common.median_spread([r["gpu_peak_mb"] for r in reps])
            entry["host_ms_per_step"] = _common.median_spread([r["host_s"] * 1e3 for r in reps])
        out[f] = entry
    if "torch" in out:
        mt, th = out["microtorch"], out["torch"]
        out["ratio_time"] = mt["ms_per_step"]["median"] / th["ms_per_step"]["median"]
        out["ratio_peak_rss"] = mt["peak_rss_mb"]["median"] / th["peak_rss_mb"]["median"]
        out["ratio_train_mb"] = mt["train_mb"]["median"] / max(th["train_mb"]["median"], 1e-9)
        n = min(len(mt["losses"]), len(th["losses"]))
        out["max_loss_diff"] = max(abs(a - b) for a, b in zip(mt["losses"][:n], th["losses"][:n]))
    return out


def print_summary(results: dict, frameworks: list[str], device: str) -> None:
    print()
    headers = ["preset", "framework", "ms/step (min..max)", "tokens/s", "GFLOP/s", "of matmul",
               "peak RSS MB", "train MB"]  # fmt: skip
    if device == "cuda":
        headers.append("GPU peak MB")
    rows = []
    for preset, r in results.items():
        for f in frameworks:
            e = r[f]
            ms = e["ms_per_step"]
            row = [preset, f, f"{ms['median']:.1f} ({ms['min']:.1f}..{ms['max']:.1f})",
                   f"{e['tokens_per_s']['median']:,.0f}", f"{e['gflops']['median']:.1f}",
                   f"{e['fraction_of_matmul']:.0%}" if "fraction_of_matmul" in e else "-",
                   f"{e['peak_rss_mb']['median']:.0f}", f"{e['train_mb']['median']:.0f}"]  # fmt: skip
            if device == "cuda":
                row.append(f"{e['gpu_peak_mb']['median']:.0f}")
            rows.append(row)
    _common.print_table(headers, rows)
    print()
    for preset, r in results.items():
        line = (f"{preset}: {r['n_params']:,} params, {r['flop_per_step'] / 1e9:.2f} GFLOP/step, "
                f"{r['tokens_per_step']} tokens/step, {r['steps']} timed steps per worker")  # fmt: skip
        rate = r.get("matmul_gflops")
        if rate:
            line += (f"; float32 matmul {rate['median']:.0f} GFLOP/s "
                     f"({rate['min']:.0f}..{rate['max']:.0f})")  # fmt: skip
        print(line)
        if device == "cuda":  # host time near the step time: the GPU waits for the launches
            print("  host time per step (launching the work, before the final synchronize): "
                  + ", ".join(f"{f} {r[f]['host_ms_per_step']['median']:.1f} ms"
                              for f in frameworks))  # fmt: skip
        if "ratio_time" in r:
            print(f"  microtorch/PyTorch: time {r['ratio_time']:.2f}, peak RSS "
                  f"{r['ratio_peak_rss']:.2f}, train MB {r['ratio_train_mb']:.2f}; largest loss "
                  f"difference over the steps {r['max_loss_diff']:.2e}")  # fmt: skip


if __name__ == "__main__":
    main()
