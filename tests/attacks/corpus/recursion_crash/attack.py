import sys as _sys


def _down(n):
    return _down(n + 1) + 1


def prefix_consistency_gap(model, input_ids):
    # Comparing two deeply nested lists recurses in C: with the recursion limit lifted the C
    # stack overflows and the interpreter dies with SIGSEGV.
    _sys.setrecursionlimit(10**8)
    a, b = [], []
    for _ in range(200_000):
        a, b = [a], [b]
    return a == b


def greedy_generate(model, input_ids, max_new_tokens, **kwargs):
    return _down(0)
