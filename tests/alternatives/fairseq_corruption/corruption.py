# ALTERNATIVE fairseq_corruption: fairseq's MaskTokensDataset split (mask_prob, then
# rand_or_unmask_prob = 0.2 of the selected, half of those left unmasked, the other half
# random) with random ids drawn by torch.multinomial from a weight vector whose specials are
# zero, and the selection per position (not fairseq's fixed count, which the contract
# forbids). A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if mlm_probability < 0.0 or mlm_probability > 1.0:
        raise ValueError("mlm_probability must lie in [0, 1]")
    g = generator
    if g is None:
        g = torch.Generator()
        g.seed()
    item = input_ids.long()
    weights = torch.ones(vocab_size, dtype=torch.float64)
    for s in special_token_ids:
        weights[int(s)] = 0.0
    if weights.sum() == 0:
        raise ValueError("every id is special")
    is_special = torch.zeros(item.shape, dtype=torch.bool)
    for s in special_token_ids:
        is_special |= item == int(s)

    random_token_prob, leave_unmasked_prob = 0.1, 0.1
    rand_or_unmask_prob = random_token_prob + leave_unmasked_prob
    mask = (torch.rand(item.shape, generator=g) < mlm_probability) & ~is_special
    rand_or_unmask = mask & (torch.rand(item.shape, generator=g) < rand_or_unmask_prob)
    unmask = rand_or_unmask & (
        torch.rand(item.shape, generator=g) < leave_unmasked_prob / rand_or_unmask_prob
    )
    rand_mask = rand_or_unmask & ~unmask
    mask_only = mask & ~rand_or_unmask

    target = torch.full_like(item, -100)
    target[mask] = item[mask]
    new_item = item.clone()
    new_item[mask_only] = mask_token_id
    num_rand = int(rand_mask.sum())
    if num_rand > 0:
        new_item[rand_mask] = torch.multinomial(weights, num_rand, replacement=True, generator=g)
    return new_item, target
