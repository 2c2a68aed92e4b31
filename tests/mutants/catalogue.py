"""The single-bug mutants: each is one solution module with exactly one misconception.

A mutant is built in memory from ``solutions/`` by a few textual edits that together make
that one mistake (each edit must apply exactly once, so a refactored solution breaks the
build loudly instead of silently testing nothing). The table gives the part it breaks and the
diagnosis id the hidden suite is expected to name ("none" if none); tests/test_hidden_suite.py
grades every one. To read one as a file:

    python tests/mutants/catalogue.py triu_tril_swapped      # prints the buggy module
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (folder, module, diagnosis, what the bug is, [(old, new), ...])
MUTANTS: list[tuple[str, str, str, str, list[tuple[str, str]]]] = [
    # ------------------------------------------------------------------ masks
    ("triu_tril_swapped", "masks", "triu_tril_swapped", "causal mask keeps j >= i (triu)",
     [("return j <= i + (k_len - q_len)", "return j >= i + (k_len - q_len)")]),
    ("diagonal_excluded", "masks", "diagonal_excluded", "causal mask keeps j < i (no diagonal)",
     [("return j <= i + (k_len - q_len)", "return j < i + (k_len - q_len)")]),
    ("mask_off_by_one_future", "masks", "mask_off_by_one_future", "causal mask lets i see i+1",
     [("return j <= i + (k_len - q_len)", "return j <= i + (k_len - q_len) + 1")]),
    ("top_left_alignment", "masks", "top_left_alignment", "causal mask ignores Tk - Tq",
     [("return j <= i + (k_len - q_len)", "return j <= i")]),
    ("mask_polarity_flipped", "masks", "mask_polarity_flipped",
     "causal mask returned as True = blocked (nn.MultiheadAttention convention)",
     [("return j <= i + (k_len - q_len)", "return j > i + (k_len - q_len)")]),
    ("padding_polarity_flipped", "masks", "padding_polarity_flipped", "padding mask True at pads",
     [("return (attention_mask != 0)[:, None, None, :]", "return (attention_mask == 0)[:, None, None, :]")]),
    ("padding_applied_to_queries", "masks", "padding_applied_to_queries",
     "padding mask shaped (B, 1, T, 1): hides padding queries instead of keys",
     [("return (attention_mask != 0)[:, None, None, :]", "return (attention_mask != 0)[:, None, :, None]")]),
    ("mask_or_instead_of_and", "masks", "mask_or_instead_of_and", "causal | padding",
     [("return keys & causal_mask(T, device=attention_mask.device)",
       "return keys | causal_mask(T, device=attention_mask.device)")]),
    ("causal_dropped_with_padding", "masks", "causal_dropped_with_padding",
     "with an attention_mask, only the padding mask is returned",
     [("    if not causal:\n        return keys.clone()\n", "    return keys.clone()\n")]),
    ("mask_after_softmax", "masks", "mask_after_softmax", "mask applied only after the softmax",
     [("        scores = torch.where(mask, scores, torch.finfo(compute).min)\n",
       "        pass  # (the mask is applied after the softmax only)\n")]),
    ("nan_on_empty_rows", "masks", "nan_on_empty_rows",
     "fill with -inf and no zeroing: fully-masked rows are NaN",
     [("torch.where(mask, scores, torch.finfo(compute).min)", "torch.where(mask, scores, float(\"-inf\"))"),
      ("        weights = torch.where(mask, weights, 0.0)\n", "        pass\n")]),
    ("nan_on_empty_rows_nan_to_num", "masks", "nan_gradient_on_empty_rows",
     "additive -inf bias, then nan_to_num: finite forward, NaN gradients on fully-masked rows",
     [("scores = torch.where(mask, scores, torch.finfo(compute).min)",
       "scores = scores + torch.zeros_like(scores).masked_fill(~mask, float(\"-inf\"))"),
      ("        weights = torch.where(mask, weights, 0.0)\n", "        weights = torch.nan_to_num(weights, nan=0.0)\n")]),
    ("empty_row_not_zero", "masks", "empty_row_not_zero",
     "no zeroing after the softmax: fully-masked rows get uniform weights",
     [("        weights = torch.where(mask, weights, 0.0)\n", "        pass\n")]),
    ("missing_scale", "masks", "missing_scale", "no 1/sqrt(D)",
     [("scale = 1.0 / math.sqrt(q.size(-1))", "scale = 1.0")]),
    ("wrong_scale", "masks", "wrong_scale", "scaled by 1/D",
     [("scale = 1.0 / math.sqrt(q.size(-1))", "scale = 1.0 / q.size(-1)")]),
    ("softmax_wrong_axis", "masks", "softmax_wrong_axis", "softmax over the queries",
     [("weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-2)")]),
    ("masked_scores_zero", "masks", "masked_scores_zero", "masked scores set to 0 before softmax",
     [("torch.where(mask, scores, torch.finfo(compute).min)", "torch.where(mask, scores, 0.0)")]),
    ("weak_mask_constant", "masks", "weak_mask_constant", "masked scores set to -1e4",
     [("torch.where(mask, scores, torch.finfo(compute).min)", "torch.where(mask, scores, -1e4)")]),
    ("half_precision_overflow", "masks", "half_precision_overflow",
     "half inputs computed in half precision",
     [("compute = torch.float32 if dtype in _HALF_DTYPES else dtype", "compute = dtype")]),
    # ------------------------------------------------------------------ corruption
    ("specials_selected", "corruption", "specials_selected", "every position is eligible",
     [("eligible = ~torch.isin(ids, specials)", "eligible = torch.ones_like(ids, dtype=torch.bool)")]),
    ("wrong_80_10_10", "corruption", "wrong_80_10_10",
     "random step drawn with p=0.1 of the remainder (80/2/18)",
     [("    to_random = selected & (r >= 0.8) & (r < 0.9)  # the remaining 10% keep their id\n",
       "    r2 = torch.rand(ids.shape, generator=generator, device=device)\n"
       "    to_random = selected & ~to_mask & (r2 < 0.1)\n")]),
    ("wrong_80_10_10_overwrite", "corruption", "wrong_80_10_10",
     "random step drawn independently, overwriting masks (72/10/18)",
     [("    to_random = selected & (r >= 0.8) & (r < 0.9)  # the remaining 10% keep their id\n",
       "    to_random = selected & (torch.rand(ids.shape, generator=generator, device=device) < 0.1)\n")]),
    ("wrong_selection_rate", "corruption", "wrong_selection_rate",
     "selection ignores mlm_probability (hard-coded 0.15)",
     [("selected = eligible & (u < mlm_probability)", "selected = eligible & (u < 0.15)")]),
    ("global_rng", "corruption", "global_rng", "selection drawn from the global RNG",
     [("u = torch.rand(ids.shape, generator=generator, device=device)", "u = torch.rand(ids.shape, device=device)")]),
    ("in_place_edit", "corruption", "in_place_edit", "writes the masks into the caller's tensor",
     [("    return inputs, labels\n", "    input_ids.masked_fill_(to_mask, mask_token_id)\n    return inputs, labels\n")]),
    ("labels_not_ignored", "corruption", "labels_not_ignored", "labels = ids everywhere",
     [("labels = torch.where(selected, ids, -100)", "labels = ids.clone()")]),
    ("labels_after_corruption", "corruption", "labels_after_corruption", "labels read from the corrupted inputs",
     [("labels = torch.where(selected, ids, -100)", "labels = torch.where(selected, inputs, -100)")]),
    ("random_includes_specials", "corruption", "random_includes_specials", "random ids from the whole vocabulary",
     [("    pick = torch.randint(len(ordinary), ids.shape, generator=generator, device=device)\n"
       "    random_ids = ordinary[pick]\n",
       "    random_ids = torch.randint(vocab_size, ids.shape, generator=generator, device=device)\n")]),
    ("random_id_range", "corruption", "random_id_range", "randint high off by one",
     [("torch.randint(len(ordinary), ids.shape", "torch.randint(len(ordinary) - 1, ids.shape")]),
    ("corrupts_unselected", "corruption", "corrupts_unselected", "[MASK] step not restricted to selected",
     [("to_mask = selected & (r < 0.8)", "to_mask = r < 0.8")]),
    ("same_positions_every_row", "corruption", "same_positions_every_row", "one row of draws for the batch",
     [("u = torch.rand(ids.shape, generator=generator, device=device)",
       "u = torch.rand(ids.shape[-1:], generator=generator, device=device)")]),
    # ------------------------------------------------------------------ losses
    ("forgot_shift", "losses", "forgot_shift", "no shift: logits[t] scored against ids[t]",
     [("    targets = input_ids[:, 1:].to(torch.int64)  # (B, T-1): position t predicts t+1\n",
       "    targets = input_ids.to(torch.int64)  # (B, T)\n"),
      ("        real = attention_mask[:, 1:] != 0  # (B, T-1), judged on the *target*\n",
       "        real = attention_mask != 0  # (B, T)\n"),
      ("return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))",
       "return _mean_cross_entropy(logits.reshape(-1, V), targets.reshape(-1))")]),
    ("shifted_wrong_side", "losses", "shifted_wrong_side", "logits[:, 1:] against ids[:, :-1]",
     [("    targets = input_ids[:, 1:].to(torch.int64)  # (B, T-1): position t predicts t+1\n",
       "    targets = input_ids[:, :-1].to(torch.int64)\n"),
      ("        real = attention_mask[:, 1:] != 0  # (B, T-1), judged on the *target*\n",
       "        real = attention_mask[:, :-1] != 0\n"),
      ("return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))",
       "return _mean_cross_entropy(logits[:, 1:].reshape(-1, V), targets.reshape(-1))")]),
    ("double_shift", "losses", "double_shift", "logits[:, :-2] against ids[:, 2:]",
     [("    targets = input_ids[:, 1:].to(torch.int64)  # (B, T-1): position t predicts t+1\n",
       "    targets = input_ids[:, 2:].to(torch.int64)\n"),
      ("        real = attention_mask[:, 1:] != 0  # (B, T-1), judged on the *target*\n",
       "        real = attention_mask[:, 2:] != 0\n"),
      ("return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))",
       "return _mean_cross_entropy(logits[:, :-2].reshape(-1, V), targets.reshape(-1))")]),
    ("averaged_over_padding", "losses", "averaged_over_padding", "attention_mask ignored",
     [("    if attention_mask is not None:\n        real =", "    if False:\n        real =")]),
    ("mask_from_wrong_side", "losses", "mask_from_wrong_side", "attention_mask[:, :-1] instead of [:, 1:]",
     [("real = attention_mask[:, 1:] != 0", "real = attention_mask[:, :-1] != 0")]),
    ("per_sequence_mean", "losses", "per_sequence_mean", "mean per sequence, then over the batch",
     [("    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n",
       "    per_row = [_mean_cross_entropy(logits[b, :-1], targets[b]) for b in range(B)\n"
       "               if (targets[b] != IGNORE_INDEX).any()]\n"
       "    if not per_row:\n        return logits.sum() * 0.0\n"
       "    return torch.stack(per_row).mean()\n")]),
    ("sum_not_mean", "losses", "sum_not_mean", "sum of the token losses",
     [("    return total / count\n", "    return total\n")]),
    ("softmax_before_ce", "losses", "softmax_before_ce", "probabilities passed to cross_entropy",
     [("F.cross_entropy(logits, targets,", "F.cross_entropy(logits.softmax(-1), targets,")]),
    ("unstable_log_softmax", "losses", "unstable_log_softmax", "log(softmax(x)) by hand",
     [("    total = F.cross_entropy(logits, targets, ignore_index=IGNORE_INDEX, reduction=\"sum\")\n",
       "    logp = torch.log(torch.softmax(logits, dim=-1))\n"
       "    total = F.nll_loss(logp, targets, ignore_index=IGNORE_INDEX, reduction=\"sum\")\n")]),
    ("nan_on_empty_loss", "losses", "nan_on_empty_loss", "no guard for an empty mean (0/0)",
     [("    if count == 0:\n        return logits.sum() * 0.0  # keeps the graph: backward() gives zero gradients\n", "")]),
    ("empty_loss_not_differentiable", "losses", "empty_loss_not_differentiable",
     "empty case returns a constant",
     [("return logits.sum() * 0.0  # keeps the graph", "return torch.tensor(0.0)  # a constant")]),
    ("mlm_shifted", "losses", "mlm_shifted", "masked-LM loss shifted like a causal LM",
     [("return _mean_cross_entropy(logits.reshape(-1, V), labels.reshape(-1).to(torch.int64))",
       "return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1).to(torch.int64))")]),
    ("mean_over_all_positions", "losses", "mean_over_all_positions",
     "masked-LM loss divided by every position",
     [("    return _mean_cross_entropy(logits.reshape(-1, V), labels.reshape(-1).to(torch.int64))\n",
       "    flat = logits.reshape(-1, V).to(torch.promote_types(logits.dtype, torch.float32))\n"
       "    total = F.cross_entropy(flat, labels.reshape(-1).to(torch.int64), ignore_index=IGNORE_INDEX,\n"
       "                            reduction=\"sum\")\n"
       "    return total / labels.numel()\n")]),
    ("loss_wrong_dtype", "losses", "loss_wrong_dtype", "half logits reduced in half precision",
     [("    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))\n", "")]),
    ("kv_offset_sign_flipped", "masks", "kv_offset_sign_flipped",
     "causal mask shifted by Tq - Tk instead of Tk - Tq",
     [("return j <= i + (k_len - q_len)", "return j <= i + (q_len - k_len)")]),
    ("one_random_id", "corruption", "one_random_id",
     "one random id drawn per call and used at every randomised position",
     [("pick = torch.randint(len(ordinary), ids.shape, generator=generator, device=device)",
       "pick = torch.randint(len(ordinary), (1,), generator=generator, device=device)"
       ".expand(ids.shape)")]),
    ("argmax_when_a_generator_is_given", "generation", "argmax_instead_of_sampling",
     "sample_next_token takes the argmax whenever a generator is passed",
     [("    if temperature == 0:\n", "    if temperature == 0 or generator is not None:\n")]),
    ("bfloat16_computed_in_bfloat16", "masks", "none",
     "only float16 is upcast: bfloat16 scores and softmax stay in bfloat16",
     [("compute = torch.float32 if dtype in _HALF_DTYPES else dtype",
       "compute = torch.float32 if dtype == torch.float16 else dtype")]),
    ("generator_copied", "corruption", "generator_not_advanced",
     "draws from a private generator seeded with generator.initial_seed()",
     [("    ordinary = torch.arange(vocab_size, device=device)",
       "    if generator is not None:\n"
       "        generator = torch.Generator(device=device).manual_seed(generator.initial_seed())\n"
       "    ordinary = torch.arange(vocab_size, device=device)")]),
    ("mask_id_among_random_ids", "corruption", "random_includes_specials",
     "the [MASK] id stays among the random replacement candidates",
     [("ordinary = ordinary[~torch.isin(ordinary, specials)]",
       "ordinary = ordinary[~torch.isin(ordinary, specials) | (ordinary == mask_token_id)]")]),
    ("split_shared_across_rows", "corruption", "split_shared_across_rows",
     "the 80/10/10 draw is made once per column and shared by every row",
     [("r = torch.rand(ids.shape, generator=generator, device=device)",
       "r = torch.rand(ids.shape[-1:], generator=generator, device=device)")]),
    ("random_positions_unlabelled", "corruption", "random_positions_unlabelled",
     "randomised positions get label -100",
     [("labels = torch.where(selected, ids, -100)",
       "labels = torch.where(selected & ~to_random, ids, -100)")]),
    ("int32_targets", "losses", "none", "causal targets not cast to int64",
     [("targets = input_ids[:, 1:].to(torch.int64)", "targets = input_ids[:, 1:]")]),
    ("float_mask_accepted", "masks", "none",
     "masked_attention silently accepts an additive float mask instead of raising TypeError",
     [("        raise TypeError(f\"mask must be a bool keep-mask (True = attend), got {mask.dtype}\")\n",
       "        mask = mask == 0  # an additive 0 / -inf mask\n")]),
    ("fixed_count_per_row", "corruption", "fixed_count_per_row",
     "exactly round(p * n) positions selected per row",
     [("    selected = eligible & (u < mlm_probability)",
       "    u = torch.where(eligible, u, 2.0)\n"
       "    n_pick = torch.round(eligible.sum(-1, keepdim=True) * mlm_probability).long()\n"
       "    rank = u.argsort(dim=-1).argsort(dim=-1)\n"
       "    selected = eligible & (rank < n_pick)")]),
    ("no_ordinary_id_unchecked", "corruption", "none",
     "a vocabulary with no ordinary id is not refused with ValueError",
     [("    if ordinary.numel() == 0:\n        raise ValueError(\"every id in [0, vocab_size) is "
       "special: nothing to draw from\")\n", "")]),
    ("probability_unchecked", "corruption", "none", "mlm_probability outside [0, 1] accepted",
     [("    if not 0.0 <= mlm_probability <= 1.0:\n        raise ValueError(f\"mlm_probability must be in [0, 1], got {mlm_probability}\")\n",
       "")]),
    ("loss_shapes_unchecked", "losses", "none", "mismatched shapes are not refused",
     [("    if input_ids.shape != (B, T):\n        raise ValueError(f\"input_ids must be {(B, T)}, got {tuple(input_ids.shape)}\")\n"
       "    if attention_mask is not None and attention_mask.shape != (B, T):\n        raise ValueError(f\"attention_mask must be {(B, T)}, got {tuple(attention_mask.shape)}\")\n",
       "")]),
    # ------------------------------------------------------------------ generation
    ("no_context_crop", "generation", "no_context_crop", "context never cropped",
     [("context = ids[:, -model.max_seq_len :]", "context = ids")]),
    ("crop_wrong_side", "generation", "crop_wrong_side", "keeps the first max_seq_len tokens",
     [("context = ids[:, -model.max_seq_len :]", "context = ids[:, : model.max_seq_len]")]),
    ("eos_not_sticky", "generation", "eos_not_sticky", "finished rows keep generating",
     [("                next_id = torch.where(finished, eos_token_id, next_id)  # eos is sticky\n", "")]),
    ("eos_no_early_stop", "generation", "eos_no_early_stop", "never stops early",
     [("            if eos_token_id is not None and bool(finished.all()):\n                break\n", "")]),
    ("eos_in_prompt_counts", "generation", "eos_in_prompt_counts", "an eos in the prompt finishes the row",
     [("    finished = torch.zeros(ids.size(0), dtype=torch.bool, device=ids.device)  # (B,)\n",
       "    finished = (ids == eos_token_id).any(dim=1) if eos_token_id is not None else torch.zeros(\n"
       "        ids.size(0), dtype=torch.bool, device=ids.device)\n")]),
    ("wrong_position_logits", "generation", "wrong_position_logits", "next token from logits[:, 0]",
     [("next_id = choose(logits[:, -1, :])", "next_id = choose(logits[:, 0, :])")]),
    ("no_eval_mode", "generation", "no_eval_mode", "model left in train mode (dropout on)",
     [("        for m in modules:\n            m.training = False\n", "")]),
    ("mode_not_restored", "generation", "mode_not_restored", "modes never restored",
     [("        for m, mode in zip(modules, modes, strict=True):\n            m.training = mode\n",
       "        pass\n")]),
    ("mode_restored_top_level_only", "generation", "mode_not_restored",
     "only the top module's mode is restored (model.train(mode)): submodules in another mode "
     "come back in the top module's",
     [("        for m, mode in zip(modules, modes, strict=True):\n            m.training = mode\n",
       "        if modules:\n            modules[0].train(modes[0])\n")]),
    ("grad_enabled_in_generation", "generation", "grad_enabled_in_generation", "no torch.no_grad()",
     [("        with torch.no_grad():\n            yield\n", "        yield\n")]),
    ("top_p_drops_crossing", "generation", "top_p_drops_crossing", "keeps only cumulative <= p",
     [("drop_sorted = mass_before >= top_p", "drop_sorted = cumulative > top_p")]),
    ("top_p_not_scattered", "generation", "top_p_not_scattered", "sorted mask applied to vocab order",
     [("drop = drop_sorted.scatter(-1, order, drop_sorted)", "drop = drop_sorted")]),
    ("top_k_off_by_one", "generation", "top_k_off_by_one", "drops the k-th token too (keeps k-1)",
     [("logits = logits.masked_fill(logits < kth, float(\"-inf\"))",
       "logits = logits.masked_fill(logits <= kth, float(\"-inf\"))")]),
    ("temperature_on_probabilities", "generation", "temperature_on_probabilities",
     "probabilities divided by the temperature, then renormalised",
     [("    logits = logits / temperature\n", ""),
      ("    probs = torch.softmax(logits, dim=-1)  # (B, V)\n",
       "    probs = torch.softmax(logits, dim=-1) / temperature\n"
       "    probs = probs / probs.sum(dim=-1, keepdim=True)\n")]),
    ("temperature_inverted", "generation", "temperature_inverted", "logits multiplied by T",
     [("    logits = logits / temperature\n", "    logits = logits * temperature\n")]),
    ("filter_order", "generation", "filter_order", "temperature applied after top-k / top-p",
     [("    logits = logits / temperature\n", ""),
      ("    if generator is None:  # a private generator: the global RNG is never touched\n        generator = torch.Generator(device=probs.device)\n        generator.seed()\n    return torch.multinomial",
       "    probs = torch.softmax(torch.log(probs) / temperature, dim=-1)\n"
       "    if generator is None:  # a private generator: the global RNG is never touched\n        generator = torch.Generator(device=probs.device)\n        generator.seed()\n    return torch.multinomial")]),
    ("global_rng_sampling", "generation", "global_rng", "multinomial without the generator",
     [("torch.multinomial(probs, 1, generator=generator)", "torch.multinomial(probs, 1)")]),
    ("gap_prefix_off_by_one", "generation", "gap_prefix_off_by_one", "prefix ends at t-1",
     [("prefix = model(input_ids[:, : t + 1])[0, t].double()", "prefix = model(input_ids[:, : max(t, 1)])[0, -1].double()")]),
    ("gap_not_max_abs", "generation", "gap_not_max_abs", "mean instead of max",
     [("gaps.append((full[t] - prefix).abs().max())", "gaps.append((full[t] - prefix).abs().mean())")]),
    ("sampling_setting_ignored", "generation", "sampling_setting_ignored",
     "sample_generate never passes top_p on to sample_next_token",
     [("last_logits, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator",
       "last_logits, temperature=temperature, top_k=top_k, generator=generator")]),
    ("squeeze_all", "generation", "none",
     "squeeze() instead of squeeze(-1): a batch of one row gives a 0-d tensor",
     [("torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
       "torch.multinomial(probs, 1, generator=generator).squeeze()")]),
    ("sample_loop_without_inference", "generation", "no_eval_mode",
     "sample_generate runs its own loop with no eval mode and no torch.no_grad()",
     [("    return _generate(model, input_ids, max_new_tokens, choose, eos_token_id)\n\n\ndef prefix",
       "    _check_prompt(input_ids, max_new_tokens)\n"
       "    ids = input_ids.clone()\n"
       "    finished = torch.zeros(ids.size(0), dtype=torch.bool, device=ids.device)\n"
       "    for _ in range(max_new_tokens):\n"
       "        logits = model(ids[:, -model.max_seq_len :])\n"
       "        next_id = choose(logits[:, -1, :]).to(ids.device, ids.dtype)\n"
       "        if eos_token_id is not None:\n"
       "            next_id = torch.where(finished, eos_token_id, next_id)\n"
       "            finished = finished | (next_id == eos_token_id)\n"
       "        ids = torch.cat([ids, next_id[:, None]], dim=1)\n"
       "        if eos_token_id is not None and bool(finished.all()):\n"
       "            break\n"
       "    return ids\n\n\ndef prefix")]),
    ("top_k_ties_dropped", "generation", "top_k_ties_dropped",
     "top-k keeps the k indices torch.topk returns, dropping ties with the k-th",
     [("        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1), the k-th largest\n"
       "        logits = logits.masked_fill(logits < kth, float(\"-inf\"))\n",
       "        idx = torch.topk(logits, top_k, dim=-1).indices\n"
       "        keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, idx, True)\n"
       "        logits = logits.masked_fill(~keep, float(\"-inf\"))\n")]),
    ("prompt_dtype_not_kept", "generation", "none", "new ids not cast to the prompt's dtype",
     [("next_id = choose(logits[:, -1, :]).to(ids.device, ids.dtype)",
       "next_id = choose(logits[:, -1, :]).to(ids.device)")]),
    ("no_new_tokens_returns_prompt", "generation", "none",
     "max_new_tokens=0 returns the prompt tensor itself",
     [("    _check_prompt(input_ids, max_new_tokens)\n    ids = input_ids.clone()",
       "    _check_prompt(input_ids, max_new_tokens)\n    if max_new_tokens == 0:\n"
       "        return input_ids\n    ids = input_ids.clone()")]),
    ("gap_with_autograd", "generation", "grad_enabled_in_generation",
     "prefix_consistency_gap computed with autograd on",
     [("    with _inference(model):\n        full = model(input_ids)",
       "    with _inference(model), torch.enable_grad():\n        full = model(input_ids)")]),
    ("sampling_arguments_unchecked", "generation", "none",
     "sample_next_token accepts a negative temperature, top_k < 1 and top_p <= 0",
     [("    if temperature < 0:\n        raise ValueError(f\"temperature must be >= 0, got {temperature}\")\n"
       "    if top_k is not None and top_k < 1:\n        raise ValueError(f\"top_k must be >= 1 (or None), got {top_k}\")\n"
       "    if top_p is not None and not top_p > 0:\n        raise ValueError(f\"top_p must be > 0 (or None), got {top_p}\")\n",
       "")]),
    # ------------------------------------------------------------------ vacuous answers
    # (each must lose the property points listed in VACUOUS below, not only points elsewhere)
    ("mask_all_false", "masks", "none", "build_attention_mask hides every key (all False)",
     [("    \"\"\"Task 1.3: causal AND padding -> bool ``(B or 1, 1, T, T)``.\"\"\"\n",
       "    B = 1 if attention_mask is None else attention_mask.shape[0]\n"
       "    return torch.zeros(B, 1, seq_len, seq_len, dtype=torch.bool)\n")]),
    ("mask_all_true", "masks", "none", "build_attention_mask lets every query see every key",
     [("    \"\"\"Task 1.3: causal AND padding -> bool ``(B or 1, 1, T, T)``.\"\"\"\n",
       "    B = 1 if attention_mask is None else attention_mask.shape[0]\n"
       "    return torch.ones(B, 1, seq_len, seq_len, dtype=torch.bool)\n")]),
    ("corruption_identity", "corruption", "none",
     "mask_tokens selects nothing: the ids unchanged, every label -100",
     [("    return inputs, labels\n", "    return ids.clone(), torch.full_like(ids, -100)\n")]),
    ("corruption_always_value_error", "corruption", "none",
     "mask_tokens raises ValueError for every input (a stub that looks like a contract check)",
     [("    if not 0.0 <= mlm_probability <= 1.0:\n",
       "    raise ValueError(\"not implemented yet\")\n    if not 0.0 <= mlm_probability <= 1.0:\n")]),
    ("loss_constant_zero", "losses", "none", "causal_lm_loss returns a zero connected to the logits",
     [("    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n",
       "    return logits.sum() * 0.0\n")]),
    ("gap_constant_zero", "generation", "none", "prefix_consistency_gap returns zeros",
     [("    with _inference(model):\n        full = model(input_ids)[0].double()",
       "    return torch.zeros(T)\n    with _inference(model):\n        full = model(input_ids)[0].double()")]),
    ("sampler_constant", "generation", "none", "sample_next_token returns id 0 for every row",
     [("return torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
       "return torch.zeros(probs.shape[0], dtype=torch.int64)")]),
    # (new mutants go last: bundles pair mutants of different parts by position, and each
    # bundle's hidden inputs are drawn from its name, so inserting one re-draws the others)
    ("top_p_ignored", "generation", "top_p_ignored",
     "the nucleus is computed but its mask is never applied",
     [("        probs = probs.masked_fill(drop, 0.0)\n", "")]),
    ("divides_by_temperature_zero", "generation", "divided_by_temperature_zero",
     "logits divided by the temperature before the temperature == 0 check (inf / NaN logits)",
     [("    if temperature == 0:\n        return logits.argmax(dim=-1)  # greedy; ties -> lowest id\n",
       "    scaled = logits / temperature\n    if temperature == 0:\n        return scaled.argmax(dim=-1)\n")]),
    # issue 16: one mistake is charged once (bounds in tests/test_hidden_suite.py::CHARGE_BOUNDS)
    ("float64_loss_in_float32_cast_back", "losses", "float64_computed_in_float32",
     "the loss computed in float32 and cast back to the logits' dtype",
     [("    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))\n",
       "    out_dtype = torch.promote_types(logits.dtype, torch.float32)\n"
       "    logits = logits.float()\n"),
      ("    return total / count\n", "    return (total / count).to(out_dtype)\n")]),
    ("float64_loss_in_float32", "losses", "float64_computed_in_float32",
     "the loss always computed and returned in float32 (float64 logits too)",
     [("    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))\n",
       "    logits = logits.float()\n")]),
    ("mlm_pad_slots_counted", "losses", "mlm_pad_slots_counted",
     "masked_lm_loss scores the -100 slots as the pad id 0 (labels.clamp(min=0))",
     [("    return _mean_cross_entropy(logits.reshape(-1, V), labels.reshape(-1).to(torch.int64))",
       "    return _mean_cross_entropy(logits.reshape(-1, V),\n"
       "                               labels.reshape(-1).to(torch.int64).clamp(min=0))")]),
    ("sample_generate_returns_prompt", "generation", "none",
     "sample_generate with max_new_tokens=0 returns the prompt tensor itself (greedy is right)",
     [("    return _generate(model, input_ids, max_new_tokens, choose, eos_token_id)\n",
       "    if max_new_tokens == 0:\n        return input_ids\n"
       "    return _generate(model, input_ids, max_new_tokens, choose, eos_token_id)\n")]),
    ("half_loss_in_half_cast_to_float32", "losses", "loss_wrong_dtype",
     "half logits reduced in half precision, the loss then cast to float32 (right dtype)",
     [("    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))\n",
       "    out_dtype = torch.promote_types(logits.dtype, torch.float32)\n"),
      ("    return total / count\n", "    return (total / count).to(out_dtype)\n")]),
    # vacuous answers nudged by a hair, so that the exact "one value" / "constant" checks of
    # the working gate missed them (they kept every property point their exact twins lose)
    ("loss_near_zero", "losses", "none",
     "causal_lm_loss returns zero plus 1e-12 x the first logit (a constant that differs)",
     [("    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n",
       "    return logits.sum() * 0.0 + 1e-12 * logits.reshape(-1)[0]\n")]),
    ("gap_near_zero", "generation", "none",
     "prefix_consistency_gap returns zeros but a last entry of 1e-9 x the ids' sum",
     [("    with _inference(model):\n        full = model(input_ids)[0].double()",
       "    gap = torch.zeros(T)\n    gap[-1] = 1e-9 * float(input_ids.sum() + 1)\n"
       "    return gap\n    with _inference(model):\n        full = model(input_ids)[0].double()")]),
    # issue: mistakes and public-code habits the catalogue did not have (each graded; the
    # ones the grader got wrong on 099c912 are marked FIXED: see tests/test_hidden_suite.py)
    ('causal_mask_uint8', 'masks', 'none', 'causal mask built as uint8 tril (not bool) (FIXED)',
     [('    return j <= i + (k_len - q_len)  # (Tq, Tk), bottom-right aligned\n', '    return (j <= i + (k_len - q_len)).to(torch.uint8)\n')]),
    ('padding_mask_keeps_int', 'masks', 'none', 'padding mask returns the 0/1 ints reshaped (no != 0) (FIXED)',
     [('return (attention_mask != 0)[:, None, None, :]', 'return attention_mask[:, None, None, :]')]),
    ('build_mask_3d', 'masks', 'none', 'build_attention_mask returns (B, T, T), no head axis',
     [('    return keys & causal_mask(T, device=attention_mask.device)  # (B, 1, T, T)\n', '    return (keys & causal_mask(T, device=attention_mask.device))[:, 0]\n')]),
    ('ignores_causal_flag_no_padding', 'masks', 'ignores_causal_flag', 'without an attention_mask the causal mask is returned even for causal=False',
     [('        if causal:\n            return causal_mask(seq_len)[None, None]  # (1, 1, T, T)\n', '        return causal_mask(seq_len)[None, None]  # (1, 1, T, T)\n')]),
    ('seq_len_unchecked', 'masks', 'none', "seq_len never compared with the mask's length",
     [('    if T != seq_len:\n        raise ValueError(f"attention_mask has length {T} but seq_len is {seq_len}")\n', '')]),
    ('scale_by_sqrt_tk', 'masks', 'wrong_scale', 'scaled by 1/sqrt(Tk) instead of 1/sqrt(D)',
     [('scale = 1.0 / math.sqrt(q.size(-1))', 'scale = 1.0 / math.sqrt(k.size(-2))')]),
    ('attention_keep_inverted', 'masks', 'attention_mask_inverted', 'masked_attention fills where the mask is True (treats True as blocked)',
     [('scores = torch.where(mask, scores, torch.finfo(compute).min)', 'scores = torch.where(~mask, scores, torch.finfo(compute).min)'), ('weights = torch.where(mask, weights, 0.0)', 'weights = torch.where(~mask, weights, 0.0)')]),
    ('half_results_not_cast_back', 'masks', 'none', 'half inputs: float32 results returned (FIXED)',
     [('return out.to(dtype), weights.to(dtype)', 'return out, weights')]),
    ('scale_q_in_place', 'masks', 'in_place_edit', 'q scaled in place (q.to() is a no-op for float64) (FIXED)',
     [('    scores = (q @ k.transpose(-2, -1)) * scale  # (B, H, Tq, Tk)\n', '    q.mul_(scale)\n    scores = q @ k.transpose(-2, -1)  # (B, H, Tq, Tk)\n')]),
    ('renormalised_after_softmax', 'masks', 'renormalised_after_softmax', 'softmax over all keys, masked weights zeroed and renormalised (0/0 on empty rows) (FIXED)',
     [('        scores = torch.where(mask, scores, torch.finfo(compute).min)\n', '        pass\n'), ('        weights = torch.where(mask, weights, 0.0)\n', '        weights = torch.where(mask, weights, 0.0)\n        weights = weights / weights.sum(-1, keepdim=True)\n')]),
    ('labels_minus_one', 'corruption', 'wrong_ignore_label', 'unselected labels are -1, not -100 (FIXED)',
     [('labels = torch.where(selected, ids, -100)', 'labels = torch.where(selected, ids, -1)')]),
    ('selection_inverted', 'corruption', 'wrong_selection_rate', 'selects with u > p (1 - p of the tokens) (FIXED)',
     [('selected = eligible & (u < mlm_probability)', 'selected = eligible & (u > mlm_probability)')]),
    ('random_step_not_restricted', 'corruption', 'corrupts_unselected', 'random step not restricted to selected',
     [('to_random = selected & (r >= 0.8) & (r < 0.9)', 'to_random = eligible & (r >= 0.8) & (r < 0.9)')]),
    ('ids_not_cast', 'corruption', 'none', "outputs keep the input's integer dtype",
     [('ids = input_ids.to(torch.int64)', 'ids = input_ids')]),
    ('random_excludes_only_mask', 'corruption', 'random_includes_specials', 'random ids exclude [MASK] only, not the other specials',
     [('ordinary = ordinary[~torch.isin(ordinary, specials)]', 'ordinary = ordinary[ordinary != mask_token_id]')]),
    ('in_place_when_int64', 'corruption', 'in_place_edit', "writes into ids, which is the caller's tensor when it is already int64",
     [('    inputs = torch.where(to_mask, mask_token_id, ids)\n    inputs = torch.where(to_random, random_ids, inputs)\n    labels = torch.where(selected, ids, -100)\n', '    labels = torch.where(selected, ids, -100)\n    inputs = ids\n    inputs[to_mask] = mask_token_id\n    inputs[to_random] = random_ids[to_random]\n')]),
    ('probability_one_refused', 'corruption', 'none', 'mlm_probability must be < 1 (1.0 refused)',
     [('if not 0.0 <= mlm_probability <= 1.0:', 'if not 0.0 <= mlm_probability < 1.0:')]),
    ('specials_assumed_prefix', 'corruption', 'ordinary_ids_treated_as_special', 'specials assumed to be the ids <= max(specials) (FIXED)',
     [('eligible = ~torch.isin(ids, specials)', 'eligible = ids > specials.max()')]),
    ('label_smoothing', 'losses', 'label_smoothing', 'F.cross_entropy(..., label_smoothing=0.1) (FIXED)',
     [('reduction="sum")', 'reduction="sum", label_smoothing=0.1)')]),
    ('count_includes_first_token', 'losses', 'count_includes_first_token', 'mean divides by every real token, first included (FIXED)',
     [('    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n', '    n_real = attention_mask.sum() if attention_mask is not None else torch.tensor(B * T)\n    lg = logits[:, :-1].reshape(-1, V).to(torch.promote_types(logits.dtype, torch.float32))\n    if n_real == 0 or (targets != IGNORE_INDEX).sum() == 0:\n        return lg.sum() * 0.0\n    total = F.cross_entropy(lg, targets.reshape(-1), ignore_index=IGNORE_INDEX, reduction="sum")\n    return total / n_real\n')]),
    ('ignore_pad_id_zero', 'losses', 'none', 'padding targets set to id 0 and ignore_index=0',
     [('        targets = torch.where(real, targets, IGNORE_INDEX)\n    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n', '        targets = torch.where(real, targets, 0)\n    lg = logits[:, :-1].reshape(-1, V).to(torch.promote_types(logits.dtype, torch.float32))\n    t = targets.reshape(-1)\n    if (t != 0).sum() == 0:\n        return lg.sum() * 0.0\n    return F.cross_entropy(lg, t, ignore_index=0)\n')]),
    ('causal_mean_over_all_positions', 'losses', 'mean_over_all_positions', "causal: reduction='none' then .mean() (ignored slots count) (FIXED)",
     [('    return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))\n', '    lg = logits[:, :-1].reshape(-1, V).to(torch.promote_types(logits.dtype, torch.float32))\n    return F.cross_entropy(lg, targets.reshape(-1), ignore_index=IGNORE_INDEX, reduction="none").mean()\n')]),
    ('source_and_target_real', 'losses', 'none', 'counts a pair only when both the input and the target are real',
     [('real = attention_mask[:, 1:] != 0', 'real = (attention_mask[:, 1:] != 0) & (attention_mask[:, :-1] != 0)')]),
    ('mlm_labels_not_cast', 'losses', 'none', 'masked labels not cast to int64',
     [('labels.reshape(-1).to(torch.int64))', 'labels.reshape(-1))')]),
    ('empty_loss_new_leaf', 'losses', 'empty_loss_not_differentiable', 'empty case: torch.tensor(0.0, requires_grad=True)',
     [('return logits.sum() * 0.0  # keeps the graph', 'return torch.tensor(0.0, requires_grad=True)  # a new leaf')]),
    ('crop_one_short', 'generation', 'none', 'context cropped to max_seq_len - 1 tokens',
     [('context = ids[:, -model.max_seq_len :]', 'context = ids[:, -(model.max_seq_len - 1) :]')]),
    ('eos_stop_on_any', 'generation', 'none', 'stops when any row has finished',
     [('if eos_token_id is not None and bool(finished.all()):', 'if eos_token_id is not None and bool(finished.any()):')]),
    ('eos_zero_falsy', 'generation', 'eos_id_zero_ignored', 'if eos_token_id: (an eos id of 0 is ignored) (FIXED)',
     [('            if eos_token_id is not None:\n                next_id', '            if eos_token_id:\n                next_id'), ('if eos_token_id is not None and bool(finished.all()):', 'if eos_token_id and bool(finished.all()):')]),
    ('always_train_after', 'generation', 'mode_not_restored', 'model.train() at the end, whatever the mode was',
     [('        for m, mode in zip(modules, modes, strict=True):\n            m.training = mode\n', '        if modules:\n            modules[0].train()\n')]),
    ('top_k_not_clamped', 'generation', 'none', 'torch.topk(logits, top_k) with top_k > V',
     [('if top_k is not None and top_k < V:', 'if top_k is not None:')]),
    ('temperature_in_place', 'generation', 'in_place_edit', 'logits divided in place (float32 .to() is a no-op)',
     [('    logits = logits / temperature\n', '    logits.div_(temperature)\n')]),
    ('finished_rows_not_drawn', 'generation', 'none', 'sample_generate draws only for the unfinished rows',
     [('            next_id = choose(logits[:, -1, :]).to(ids.device, ids.dtype)  # (B,)\n', '            next_id = torch.full_like(finished, eos_token_id if eos_token_id is not None else 0, dtype=ids.dtype)\n            if (~finished).any():\n                next_id[~finished] = choose(logits[~finished][:, -1, :]).to(ids.device, ids.dtype)\n')]),
    ('top_p_on_unfiltered', 'generation', 'filter_order', 'top-p computed on the probabilities before top-k',
     [('    probs = torch.softmax(logits, dim=-1)  # (B, V)\n', '    probs = torch.softmax(logits, dim=-1)  # (B, V)\n    full_probs = torch.softmax(logits_t, dim=-1)\n'), ('    logits = logits / temperature\n', '    logits = logits / temperature\n    logits_t = logits\n'), ('sorted_probs, order = torch.sort(probs, dim=-1', 'sorted_probs, order = torch.sort(full_probs, dim=-1')]),
    ('gap_max_over_prefix', 'generation', 'none', 'gap[t] = max over every position <= t',
     [('            gaps.append((full[t] - prefix).abs().max())\n', '            prefix_all = model(input_ids[:, : t + 1])[0].double()\n            gaps.append((full[: t + 1] - prefix_all).abs().max())\n')]),
    ('gap_returns_float64', 'generation', 'none', 'gap returned in float64 (FIXED)',
     [('return torch.stack(gaps).to(torch.float32)', 'return torch.stack(gaps)')]),
    ('generator_not_passed', 'generation', 'none', 'sample_generate never passes the generator on',
     [('top_k=top_k, top_p=top_p, generator=generator\n', 'top_k=top_k, top_p=top_p\n')]),
    ('loop_one_short', 'generation', 'none', 'range(max_new_tokens - 1)',
     [('for _ in range(max_new_tokens):', 'for _ in range(max(max_new_tokens - 1, 0)):')]),
    ('k_len_or_default', 'masks', 'none', 'k_len = k_len or q_len (k_len=0 becomes q_len) (FIXED)',
     [('k_len = q_len if k_len is None else k_len', 'k_len = k_len or q_len')]),
    ('view_on_slice', 'losses', 'none', 'logits[:, :-1].view(-1, V) on a non-contiguous slice',
     [('return _mean_cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1))', 'return _mean_cross_entropy(logits[:, :-1].view(-1, V), targets.reshape(-1))')]),
    ('sampled_ids_int32', 'generation', 'none', 'sample_next_token returns int32 ids (FIXED)',
     [('return torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # (B,)', 'return torch.multinomial(probs, 1, generator=generator).squeeze(-1).int()')]),
    ('argmax_keepdim', 'generation', 'none', 'temperature 0: argmax(-1, keepdim=True) -> (B, 1)',
     [('return logits.argmax(dim=-1)  # greedy; ties -> lowest id', 'return logits.argmax(dim=-1, keepdim=True)')]),
    ('top_p_on_logits_cumsum', 'generation', 'top_p_unsorted', 'top-p cumulative sum taken in vocabulary order (never sorted) (FIXED)',
     [('sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)', 'sorted_probs, order = probs, torch.arange(probs.size(-1)).expand_as(probs)')]),
    ('gap_no_eval', 'generation', 'no_eval_mode', 'prefix_consistency_gap leaves dropout on',
     [('    with _inference(model):\n        full = model(input_ids)[0].double()', '    with torch.no_grad():\n        full = model(input_ids)[0].double()')]),
    ('mlm_mean_per_row', 'losses', 'per_sequence_mean', 'masked loss: mean per row then over rows',
     [('    return _mean_cross_entropy(logits.reshape(-1, V), labels.reshape(-1).to(torch.int64))', '    rows = [_mean_cross_entropy(logits[b], labels[b].to(torch.int64)) for b in range(logits.size(0))\n            if (labels[b] != IGNORE_INDEX).any()]\n    return torch.stack(rows).mean() if rows else logits.sum().float() * 0.0')]),
    ('padding_by_id', 'losses', 'none', 'padding found by token id 0 instead of the attention_mask',
     [('        real = attention_mask[:, 1:] != 0  # (B, T-1), judged on the *target*\n', '        real = input_ids[:, 1:] != 0\n')]),
    ('selected_specials_restored', 'corruption', 'specials_selected', 'specials selected, then only their inputs restored (labels kept) (FIXED)',
     [('selected = eligible & (u < mlm_probability)', 'selected = u < mlm_probability'), ('    inputs = torch.where(to_random, random_ids, inputs)\n', '    inputs = torch.where(to_random, random_ids, inputs)\n    inputs = torch.where(eligible, inputs, ids)\n')]),
    ('greedy_no_clone_prompt', 'generation', 'none', 'greedy writes the first new token into a preallocated buffer aliasing the prompt when n=0',
     [('    ids = input_ids.clone()  # (B, T0)', '    ids = input_ids if max_new_tokens == 0 else input_ids.clone()  # (B, T0)')]),
    ('weights_before_zeroing', 'masks', 'none', 'returns the weights before torch.where zeroing (output uses zeroed)',
     [('        weights = torch.where(mask, weights, 0.0)\n    out = weights @ v  # (B, H, Tq, D)\n    return out.to(dtype), weights.to(dtype)', '        zeroed = torch.where(mask, weights, 0.0)\n    else:\n        zeroed = weights\n    out = zeroed @ v  # (B, H, Tq, D)\n    return out.to(dtype), weights.to(dtype)')]),
    ('top_k_applied_to_probs_after_top_p', 'generation', 'filter_order', 'top-p before top-k',
     [('    if top_k is not None and top_k < V:\n        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1), the k-th largest\n        logits = logits.masked_fill(logits < kth, float("-inf"))\n    probs = torch.softmax(logits, dim=-1)  # (B, V)\n', '    probs = torch.softmax(logits, dim=-1)  # (B, V)\n'), ('    if generator is None:  # a private generator: the global RNG is never touched\n        generator = torch.Generator(device=probs.device)\n        generator.seed()\n    return torch.multinomial', '    if top_k is not None and top_k < V:\n        kth = torch.topk(probs, top_k, dim=-1).values[:, -1:]\n        probs = probs.masked_fill(probs < kth, 0.0)\n        probs = probs / probs.sum(-1, keepdim=True)\n    if generator is None:  # a private generator: the global RNG is never touched\n        generator = torch.Generator(device=probs.device)\n        generator.seed()\n    return torch.multinomial')]),
    ('temperature_epsilon', 'generation', 'none', 'temperature 0 replaced by 1e-8 and sampled',
     [('    if temperature == 0:\n        return logits.argmax(dim=-1)  # greedy; ties -> lowest id\n', '    temperature = max(temperature, 1e-8)\n')]),
    ('random_ids_above_specials', 'corruption', 'random_includes_specials', 'random ids drawn from [len(specials), V)',
     [('    pick = torch.randint(len(ordinary), ids.shape, generator=generator, device=device)\n    random_ids = ordinary[pick]\n', '    random_ids = torch.randint(len(special_token_ids), vocab_size, ids.shape, generator=generator, device=device)\n')]),
]

# vacuous mutant -> the property tests it must not pass (a function that does not work earns no
# property points; tests/test_hidden_suite.py checks every entry)
VACUOUS: dict[str, tuple[str, ...]] = {
    "mask_all_false": ("masks.no_future_leak[mask]", "masks.no_padding_leak[mask]",
                       "masks.contract_errors"),
    "mask_all_true": ("masks.no_future_leak[mask]", "masks.no_padding_leak[mask]"),
    "corruption_identity": ("corruption.output_contract", "corruption.specials_never_selected",
                            "corruption.labels", "corruption.no_input_mutation",
                            "corruption.generator_only", "corruption.edge_cases[p0]",
                            "corruption.contract_errors"),
    "corruption_always_value_error": ("corruption.contract_errors",),
    "loss_constant_zero": ("losses.empty_targets[causal_single_token]",
                           "losses.empty_targets[causal_all_targets_padding]",
                           "losses.contract_errors", "losses.integer_id_dtypes",
                           "losses.no_input_mutation", "losses.dtype_policy[float64]",
                           "losses.dtype_policy[half]",
                           "losses.float64_precision[causal_lm_loss]"),
    "gap_constant_zero": ("generation.prefix_consistency_gap[causal_gap]",
                          "generation.prefix_consistency_gap_single_token",
                          "generation.prefix_consistency_gap_no_autograd",
                          "generation.prefix_consistency_gap_restores_mode[eval_mode]",
                          "generation.prefix_consistency_gap_restores_mode[restores_mode]",
                          "generation.contract_errors"),
    "sampler_constant": ("generation.sample_next_token_single_row",
                         "generation.sampling_generator_only", "generation.contract_errors"),
}  # fmt: skip
VACUOUS["loss_near_zero"] = VACUOUS["loss_constant_zero"]
VACUOUS["gap_near_zero"] = VACUOUS["gap_constant_zero"]


@dataclass(frozen=True)
class Mutant:
    name: str
    module: str  # also the part it breaks
    diagnosis: str
    bug: str
    source: str


def build_all() -> dict[str, Mutant]:
    """Every mutant, by name, with its source built from the current solutions."""
    out: dict[str, Mutant] = {}
    for name, module, diagnosis, what, edits in MUTANTS:
        assert name not in out, f"duplicate mutant {name}"
        src = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        for old, new in edits:
            n = src.count(old)
            assert n == 1, f"{name}: {old!r} occurs {n} times in solutions/{module}.py"
            src = src.replace(old, new)
        header = f"# MUTANT {name}: {what}.\n# Expected diagnosis: {diagnosis}.\n"
        out[name] = Mutant(name, module, diagnosis, what, header + src)
    return out


if __name__ == "__main__":
    print(build_all()[sys.argv[1]].source)
