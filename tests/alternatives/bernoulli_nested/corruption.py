# ALTERNATIVE bernoulli_nested: torch.bernoulli for the selection, then nested draws (80% of
# the selected -> [MASK], half of the rest -> random), random ids by indexing a shuffled pool.
# A different random stream from the reference. A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if not 0.0 <= mlm_probability <= 1.0:
        raise ValueError("mlm_probability must be in [0, 1]")
    if generator is None:
        generator = torch.Generator()
        generator.seed()
    ids = input_ids.clone().long()
    special = torch.zeros_like(ids, dtype=torch.bool)
    for s in special_token_ids:
        special |= ids == s
    ordinary = torch.tensor(
        [i for i in range(vocab_size) if i not in set(special_token_ids)], dtype=torch.long
    )
    if len(ordinary) == 0:
        raise ValueError("no ordinary ids")

    probs = torch.full(ids.shape, float(mlm_probability))
    selected = torch.bernoulli(probs, generator=generator).bool() & ~special
    labels = torch.full_like(ids, -100)
    labels[selected] = ids[selected]

    to_mask = torch.bernoulli(torch.full(ids.shape, 0.8), generator=generator).bool() & selected
    rest = selected & ~to_mask
    to_random = torch.bernoulli(torch.full(ids.shape, 0.5), generator=generator).bool() & rest
    n = int(to_random.sum())
    picks = ordinary[torch.randint(0, len(ordinary), (n,), generator=generator)]

    inputs = ids.clone()
    inputs[to_mask] = mask_token_id
    inputs[to_random] = picks
    return inputs, labels
