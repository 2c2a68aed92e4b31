# ALTERNATIVE hf_collator_corruption: the Hugging Face DataCollatorForLanguageModeling recipe
# (torch_mask_tokens) adapted to the contract: a probability matrix with the specials zeroed,
# torch.bernoulli for the selection, bernoulli(0.8) for [MASK], bernoulli(0.5) of the rest for
# a random word drawn for the whole batch at once (from the ordinary ids, not the whole
# vocabulary), every draw from the given generator. A valid implementation: full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if not 0.0 <= mlm_probability <= 1.0:
        raise ValueError(f"mlm_probability must be in [0, 1], got {mlm_probability}")
    if generator is None:
        generator = torch.Generator(device=input_ids.device)
        generator.seed()
    inputs = input_ids.clone().long()
    labels = inputs.clone()
    special = torch.tensor(list(special_token_ids), dtype=torch.long, device=inputs.device)
    candidates = torch.arange(vocab_size, device=inputs.device)
    candidates = candidates[~torch.isin(candidates, special)]
    if len(candidates) == 0:
        raise ValueError("no non-special id to draw random replacements from")

    probability_matrix = torch.full(labels.shape, float(mlm_probability))
    special_tokens_mask = torch.isin(labels, special)
    probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix, generator=generator).bool()
    labels[~masked_indices] = -100  # only the masked tokens are scored

    # 80% of the time, replace the masked input tokens with [MASK]
    indices_replaced = (
        torch.bernoulli(torch.full(labels.shape, 0.8), generator=generator).bool() & masked_indices
    )
    inputs[indices_replaced] = mask_token_id

    # 10% of the time, a random word
    indices_random = (
        torch.bernoulli(torch.full(labels.shape, 0.5), generator=generator).bool()
        & masked_indices
        & ~indices_replaced
    )
    random_words = candidates[
        torch.randint(len(candidates), labels.shape, dtype=torch.long, generator=generator)
    ]
    inputs[indices_random] = random_words[indices_random]

    # the rest of the time (10%) the masked input tokens are kept unchanged
    return inputs, labels
