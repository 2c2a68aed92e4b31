# ALTERNATIVE multinomial_split_corruption: selection by torch.bernoulli on a probability
# tensor, the 80/10/10 split by one torch.multinomial draw over the three outcomes for the
# selected positions only, and random ids drawn only for the positions that need one (so the
# random stream depends on how many were selected: the contract lets the stream be ours).
# A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if mlm_probability < 0 or mlm_probability > 1:
        raise ValueError("mlm_probability must lie in [0, 1]")
    dev = input_ids.device
    if generator is None:
        generator = torch.Generator(device=dev)
        generator.seed()
    ids = input_ids.long().clone()
    special = torch.tensor(sorted(set(special_token_ids)), dtype=torch.long, device=dev)
    candidates = torch.tensor(
        [i for i in range(vocab_size) if i not in set(special_token_ids)],
        dtype=torch.long,
        device=dev,
    )
    if len(candidates) == 0:
        raise ValueError("no ordinary id to draw a random replacement from")
    probs = torch.full(ids.shape, float(mlm_probability), device=dev)
    probs[torch.isin(ids, special)] = 0.0
    chosen = torch.bernoulli(probs, generator=generator).bool()
    labels = torch.full_like(ids, -100)
    labels[chosen] = ids[chosen]
    n = int(chosen.sum())
    if n:
        outcome = torch.multinomial(
            torch.tensor([0.8, 0.1, 0.1], device=dev), n, replacement=True, generator=generator
        )
        new = ids[chosen]
        new[outcome == 0] = mask_token_id
        n_rand = int((outcome == 1).sum())
        pick = torch.randint(0, len(candidates), (n_rand,), generator=generator, device=dev)
        new[outcome == 1] = candidates[pick]
        ids[chosen] = new
    return ids, labels
