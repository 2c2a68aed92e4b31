"""Exercises for the causal, masked and encoder objectives unit.

Implement the stubs in this order (each raises ``NotImplementedError("Task X.Y: ...")`` until
you do; ``README.md`` beside this file explains how to check and submit):

====  ==========================================  ===============================
task  function                                    file
====  ==========================================  ===============================
1.1   ``causal_mask``                              ``masks.py``
1.2   ``padding_mask``                             ``masks.py``
1.3   ``build_attention_mask``                     ``masks.py``
1.4   ``masked_attention``                         ``masks.py``
2.1   ``mask_tokens``                              ``corruption.py``
3.1   ``causal_lm_loss``                           ``losses.py``
3.2   ``masked_lm_loss``                           ``losses.py``
4.1   ``greedy_generate``                          ``generation.py``
4.2   ``sample_next_token``                        ``generation.py``
4.3   ``sample_generate``                          ``generation.py``
4.4   ``prefix_consistency_gap``                   ``generation.py``
====  ==========================================  ===============================

``tinylm.py`` is provided, not an exercise: a tiny transformer LM that runs on your Part A
functions, for experiments and for the drill.
"""

TASKS: dict[str, tuple[str, str]] = {
    "1.1": ("masks", "causal_mask"),
    "1.2": ("masks", "padding_mask"),
    "1.3": ("masks", "build_attention_mask"),
    "1.4": ("masks", "masked_attention"),
    "2.1": ("corruption", "mask_tokens"),
    "3.1": ("losses", "causal_lm_loss"),
    "3.2": ("losses", "masked_lm_loss"),
    "4.1": ("generation", "greedy_generate"),
    "4.2": ("generation", "sample_next_token"),
    "4.3": ("generation", "sample_generate"),
    "4.4": ("generation", "prefix_consistency_gap"),
}
"""Task id -> (module, function): one id per function, the same id in stub, reference and tests."""
