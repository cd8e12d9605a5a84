"""A small CNN training step in didax beside JAX and PyTorch, measured in the same run.

The step is value_and_grad of a cross-entropy loss through a stax network (two 3x3
convolutions with ReLU and 2x2 max pooling, then a dense layer and log-softmax, on a batch
of 32 28x28 images), followed by an SGD update: under jit (didax, JAX) and eagerly
(didax, JAX, PyTorch autograd with the same parameters). The first step's loss is
checked to agree across systems. Timing as in ../shared/bench/anchors.py: one thread,
JAX's synchronous CPU dispatch, warm-up first, cases interleaved round-robin over several
rounds with gc off, medians reported. Each step is timed twice: wall clock, and the CPU
time of the whole process (XLA runs on its own thread). On a shared machine the wall-clock
median mostly measures waiting for a core; the CPU-time ratio is the steadier figure, and a
target counts as met only when both ratios meet it.

    python bench/cnn_step.py [--rounds 5] [--target-s 0.5] [--json out.json]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen="
                           "false intra_op_parallelism_threads=1").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

BATCH, SIDE, CLASSES, LR = 32, 28, 10, 0.05
# (didax mode, reference system, reference mode, max ratio)
TARGETS = [("jit", "jax", "jit", 1.05), ("eager", "torch", "eager", 2.0)]


def make_data(seed: int = 0):
    rng = np.random.RandomState(seed)
    x = rng.rand(BATCH, SIDE, SIDE, 1).astype(np.float32)
    labels = rng.randint(0, CLASSES, BATCH)
    return x, np.eye(CLASSES, dtype=np.float32)[labels]


def network(stax):
    return stax.serial(
        stax.Conv(8, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Conv(16, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Flatten, stax.Dense(CLASSES), stax.LogSoftmax)


def jaxlike_step(jx, apply):
    jnp = jx.numpy

    def loss(params, x, y):
        return -jnp.mean(jnp.sum(apply(params, x) * y, axis=1))

    def step(params, x, y):
        value, grads = jx.value_and_grad(loss)(params, x, y)
        return value, jx.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
    return step


def load(name: str):
    if name == "didax":
        import didax as jx  # noqa: PLC0415
        from didax.example_libraries import stax  # noqa: PLC0415
    else:
        import jax as jx  # noqa: PLC0415

        jx.config.update("jax_cpu_enable_async_dispatch", False)
        from jax.example_libraries import stax  # noqa: PLC0415
    return jx, stax


@dataclass
class Case:
    system: str
    mode: str
    fn: Callable
    loss: float = float("nan")
    times: list | None = None
    cpu: list | None = None


def jaxlike_cases(name: str, data) -> tuple[list[Case], list]:
    jx, stax = load(name)
    init, apply = network(stax)
    _, params = init(jx.random.key(0), (BATCH, SIDE, SIDE, 1))
    x, y = (jx.device_put(a) for a in data)
    step = jaxlike_step(jx, apply)
    jitted = jx.jit(step)

    def run(f):
        def call():
            value, new = f(params, x, y)
            jx.block_until_ready(new)
            return value
        return call
    host_params = jx.tree_util.tree_map(np.asarray, params)
    return [Case(name, "eager", run(step)), Case(name, "jit", run(jitted))], host_params


def torch_case(params, data) -> Case:
    import torch  # noqa: PLC0415
    import torch.nn.functional as F  # noqa: N812, PLC0415

    torch.set_num_threads(1)
    (w1, b1), _, _, (w2, b2), _, _, _, (w3, b3), _ = params
    conv = [(torch.tensor(w.transpose(3, 2, 0, 1)).requires_grad_(),
             torch.tensor(b.reshape(-1)).requires_grad_()) for w, b in ((w1, b1), (w2, b2))]
    dense = (torch.tensor(w3).requires_grad_(), torch.tensor(b3).requires_grad_())
    flat = [t for pair in (*conv, dense) for t in pair]
    x = torch.tensor(data[0].transpose(0, 3, 1, 2))
    y = torch.tensor(data[1])

    def step():
        h = x
        for w, b in conv:
            h = F.max_pool2d(F.relu(F.conv2d(h, w, b, padding=1)), 2)
        h = h.permute(0, 2, 3, 1).reshape(BATCH, -1)  # flatten in NHWC order, as stax does
        logp = F.log_softmax(h @ dense[0] + dense[1], dim=1)
        value = -(logp * y).sum(1).mean()
        grads = torch.autograd.grad(value, flat)
        with torch.no_grad():
            _ = [p - LR * g for p, g in zip(flat, grads)]
        return float(value)
    return Case("torch", "eager", step)


def measure(cases: list[Case], rounds: int, target_s: float) -> None:
    for c in cases:  # warm-up (compiles), and the first loss
        c.loss = float(c.fn())
        for _ in range(2):
            c.fn()
        c.times, c.cpu = [], []
    counts = {}
    for c in cases:
        t0 = time.perf_counter()
        c.fn()
        one = time.perf_counter() - t0
        counts[id(c)] = max(5, min(500, int(target_s / max(one, 1e-6))))
    gc.disable()
    try:
        for _ in range(rounds):
            for c in cases:
                for _ in range(counts[id(c)]):
                    t0, p0 = time.perf_counter(), time.process_time()
                    c.fn()
                    c.cpu.append(time.process_time() - p0)
                    c.times.append(time.perf_counter() - t0)
    finally:
        gc.enable()


def fmt(s: float) -> str:
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def report(cases: list[Case]) -> dict:
    med = {(c.system, c.mode): statistics.median(c.times) for c in cases}
    cpu = {(c.system, c.mode): statistics.median(c.cpu) for c in cases}
    print("| system | mode | median step | min step | median CPU | first loss |\n"
          "|---|---|---:|---:|---:|---:|")
    for c in cases:
        k = (c.system, c.mode)
        print(f"| {c.system} | {c.mode} | {fmt(med[k])} | {fmt(min(c.times))} | "
              f"{fmt(cpu[k])} | {c.loss:.6f} |")
    print("\n| didax mode | didax | reference | ratio | CPU ratio | target | met |\n"
          "|---|---:|---:|---:|---:|---:|---|")
    results = []
    for mode, ref_sys, ref_mode, limit in TARGETS:
        d, r = ("didax", mode), (ref_sys, ref_mode)
        if d not in med or r not in med:
            print(f"| {mode} | n/a | {ref_sys} {ref_mode} n/a | n/a | n/a | <= {limit} | n/a |")
            continue
        ratio, cpu_ratio = med[d] / med[r], cpu[d] / cpu[r]
        met = ratio <= limit and cpu_ratio <= limit
        print(f"| {mode} | {fmt(med[d])} | {ref_sys} {ref_mode} {fmt(med[r])} | {ratio:.2f} | "
              f"{cpu_ratio:.2f} | <= {limit} | {'yes' if met else 'NO'} |")
        results.append(dict(mode=mode, reference=f"{ref_sys} {ref_mode}", ratio=ratio,
                            cpu_ratio=cpu_ratio, limit=limit, met=met))
    losses = [c.loss for c in cases]
    agree = max(losses) - min(losses) <= 1e-4 * max(1.0, abs(losses[0]))
    print(f"\nfirst-step losses agree across systems: {agree}")
    return dict(rows=[dict(system=c.system, mode=c.mode, median_s=med[(c.system, c.mode)],
                           min_s=min(c.times), median_cpu_s=cpu[(c.system, c.mode)],
                           loss=c.loss) for c in cases],
                targets=results, losses_agree=agree)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--target-s", type=float, default=0.5)
    ap.add_argument("--json")
    opts = ap.parse_args(argv)
    data = make_data()
    cases, params = jaxlike_cases("didax", data)
    jax_cases, _ = jaxlike_cases("jax", data)
    cases += jax_cases
    if importlib.util.find_spec("torch") is not None:
        cases.append(torch_case(params, data))
    else:
        print("PyTorch unavailable: no eager reference")
    measure(cases, opts.rounds, opts.target_s)
    result = report(cases)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
