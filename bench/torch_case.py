#!/usr/bin/env python3
"""One GPU kernel test case, checked the way a pytest-style PyTorch harness checks it.

    python3 bench/torch_case.py OP ROWS COLS DTYPE      (OP: rmsnorm, silu_and_mul, softmax; DTYPE: f32, f16, bf16)

bench/overhead.py starts this in a fresh interpreter per case, so that its time is what such a
harness pays per case (interpreter start, `import torch`, CUDA context, inputs, op, float64 CPU
reference, compare), to set beside hkcheck's seconds per case. Prints PASS or FAIL; exit 0 / 1.
Seeded, deterministic, downloads nothing.
"""
import argparse
import sys

import torch

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# (rtol, atol): the op computes in float32 and rounds once to DTYPE, so one rounding of DTYPE
# (bf16: 2^-8, f16: 2^-11) is the error budget; f32 gets a little slack for reduction order.
TOLERANCE = {"f32": (1e-4, 1e-6), "f16": (2e-3, 1e-4), "bf16": (1.6e-2, 1e-3)}
EPS = 1e-6


def make_inputs(op, rows, cols, dtype, device):
    # A generator of its own keeps the inputs identical from run to run and independent of the op.
    g = torch.Generator(device=device).manual_seed(0)
    in_cols = 2 * cols if op == "silu_and_mul" else cols  # silu_and_mul: [gate | up] -> COLS outputs
    x = torch.randn(rows, in_cols, generator=g, device=device, dtype=torch.float32).to(dtype)
    w = torch.randn(cols, generator=g, device=device, dtype=torch.float32).to(dtype)
    return x, w


def run_op(op, x, w):
    """The op under test, written the way model code computes it: float32 math, one rounding."""
    xf = x.float()
    if op == "rmsnorm":
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()
    elif op == "silu_and_mul":
        d = x.shape[-1] // 2
        y = torch.nn.functional.silu(xf[:, :d]) * xf[:, d:]
    else:
        y = torch.softmax(xf, dim=-1)
    return y.to(x.dtype)


def reference(op, x, w):
    """The same op in float64 on the CPU, from the very (rounded) inputs the op saw."""
    xd, wd = x.double().cpu(), w.double().cpu()
    if op == "rmsnorm":
        return xd / torch.sqrt(xd.pow(2).mean(-1, keepdim=True) + EPS) * wd
    if op == "silu_and_mul":
        d = xd.shape[-1] // 2
        gate = xd[:, :d]
        return gate / (1 + torch.exp(-gate)) * xd[:, d:]
    e = torch.exp(xd - xd.max(-1, keepdim=True).values)
    return e / e.sum(-1, keepdim=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("op", choices=["rmsnorm", "silu_and_mul", "softmax"])
    p.add_argument("rows", type=int)
    p.add_argument("cols", type=int)
    p.add_argument("dtype", choices=sorted(DTYPES))
    p.add_argument("--device", default="cuda", help="torch device (cpu only to test this script without a GPU)")
    a = p.parse_args()

    x, w = make_inputs(a.op, a.rows, a.cols, DTYPES[a.dtype], a.device)
    got = run_op(a.op, x, w)
    if a.device.startswith("cuda"):
        torch.cuda.synchronize()  # a fault in the op must surface here, not be lost at exit
    want = reference(a.op, x, w)
    rtol, atol = TOLERANCE[a.dtype]
    got64 = got.double().cpu()
    ok = torch.allclose(got64, want, rtol=rtol, atol=atol) and bool(torch.isfinite(got64).all())
    worst = (got64 - want).abs().max().item()
    name = f"{a.op} rows={a.rows} cols={a.cols} {a.dtype}"
    print(f"{'PASS' if ok else 'FAIL'} {name} max_abs_diff={worst:.3g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
