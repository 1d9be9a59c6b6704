"""Which candidate a search keeps: the paired test that the search player and the search
bury share (../shared/notes/computer-players.md)."""

from __future__ import annotations


def choose(values: list[list[float]], weights: list[float], confidence: float) -> int:
    """The candidate with the best weighted mean, if it beats the heuristic's own (index 0)
    by more than ``confidence`` standard errors of the paired difference; else 0.

    Few worlds make the best-looking candidate often just the luckiest one; keeping the
    heuristic's play unless another is clearly better protects a short budget.
    """
    total = sum(weights)
    own = values[0]
    best, best_mean = 0, 0.0
    for i in range(1, len(values)):
        diffs = [v - o for v, o in zip(values[i], own, strict=True)]
        mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
        var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
        n = total * total / sum(w * w for w in weights)  # the effective number of worlds
        if mean > best_mean and mean > confidence * (var / n) ** 0.5:
            best, best_mean = i, mean
    return best
