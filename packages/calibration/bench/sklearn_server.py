#!/usr/bin/python3
"""Timing server for bench/run.ts: scikit-learn / scipy / numpy doing the same operations as the library on the
same data, timed inside python. Reads one JSON request per line on stdin, answers one JSON line on stdout:

    {"op": "isotonic fit", "reps": 7, "n": 10000, "k": 1, "p": "/tmp/.../p.f64", "y": "/tmp/.../y.u8"}
    -> {"ms": 2.1, "cpuMs": 2.0}   (medians of reps timed runs after one warm-up: wall and CPU time)
"""
import json
import sys
import time
import warnings

import numpy as np
from scipy import optimize
from sklearn.calibration import calibration_curve
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss

CLIP = 1e-6
_cache = {}


def load(path, dtype):
    if path not in _cache:
        _cache.clear() if len(_cache) > 8 else None
        _cache[path] = np.fromfile(path, dtype=dtype)
    return _cache[path]


def logit(p):
    q = np.clip(p, CLIP, 1 - CLIP)
    return np.log(q / (1 - q))


def temperature(probs, gold):
    """One temperature on clipped log-probabilities minimising NLL (scipy's bounded Brent search)."""
    logp = np.log(np.clip(probs, CLIP, 1.0))
    logp -= logp.max(axis=1, keepdims=True)
    rows = np.arange(len(gold))

    def nll(t):
        z = logp / t
        return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[rows, gold]))

    return optimize.minimize_scalar(nll, bounds=(0.05, 20), method="bounded").x


def report(probs, gold, bins=15, resamples=1000, seed=0):
    """The library's full report in vectorised numpy: ECE (both binnings), MCE, NLL, Brier, accuracy, with 1000
    bootstrap resamples (numpy.random.Generator.integers + bincount)."""
    n = probs.shape[0]
    conf = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == gold).astype(float)
    p = np.clip(probs, np.finfo(float).eps, 1 - np.finfo(float).eps)
    nll = -np.log(p[np.arange(n), gold] / p.sum(axis=1))
    onehot = np.zeros_like(probs)
    onehot[np.arange(n), gold] = 1
    brier = ((probs - onehot) ** 2).sum(axis=1)
    width = np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], conf)
    rng = np.random.default_rng(seed)

    def metrics(idx):
        c, y = conf[idx], correct[idx]
        res = y - c
        wb = width[idx]
        cnt = np.bincount(wb, minlength=bins)
        s = np.abs(np.bincount(wb, weights=res, minlength=bins))
        edges = np.percentile(c, np.linspace(0, 1, bins + 1) * 100)
        mass = np.searchsorted(edges[1:-1], c)
        return [s.sum() / n, float(np.max(s[cnt > 0] / cnt[cnt > 0])),
                np.abs(np.bincount(mass, weights=res, minlength=bins)).sum() / n,
                y.mean(), nll[idx].mean(), brier[idx].mean()]

    point = metrics(np.arange(n))
    reps = np.array([metrics(rng.integers(0, n, n)) for _ in range(resamples)])
    return point, np.percentile(reps, [2.5, 97.5], axis=0)


def operation(req):
    op, n, k = req["op"], req["n"], req["k"]
    if k == 1:
        p = load(req["p"], "<f8")
        y = load(req["y"], "<u1").astype(int)
        return {
            "isotonic fit": lambda: IsotonicRegression(out_of_bounds="clip").fit(p, y),
            "platt fit": lambda: LogisticRegression(penalty=None).fit(logit(p).reshape(-1, 1), y),
            "reliability, equal-width": lambda: calibration_curve(y, p, n_bins=15, strategy="uniform"),
            "reliability, equal-mass": lambda: calibration_curve(y, p, n_bins=15, strategy="quantile"),
            "brier": lambda: brier_score_loss(y, p),
            "log loss": lambda: log_loss(y, p),
        }[op]
    probs = load(req["probs"], "<f8").reshape(n, k)
    gold = load(req["gold"], "<i4")
    return {"temperature fit": lambda: temperature(probs, gold),
            "full report (1000 resamples)": lambda: report(probs, gold)}[op]


def main():
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        req = json.loads(line)
        fn = operation(req)
        fn()
        times, cpu = [], []
        for _ in range(req["reps"]):
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        print(json.dumps({"ms": float(np.median(times)), "cpuMs": float(np.median(cpu))}), flush=True)


if __name__ == "__main__":
    main()
