# ALTERNATIVE single_uniform: ONE uniform per token decides everything: u < 0.8 p -> [MASK],
# u < 0.9 p -> random id, u < p -> kept (selected), else not selected. Random ids come from
# floor(r * n_ordinary). A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if mlm_probability < 0 or mlm_probability > 1:
        raise ValueError("bad mlm_probability")
    g = generator
    if g is None:
        g = torch.Generator()
        g.seed()
    ids = input_ids.to(torch.long)
    specials = torch.as_tensor(list(special_token_ids), dtype=torch.long)
    vocab = torch.arange(vocab_size)
    ordinary = vocab[~torch.isin(vocab, specials)]
    if ordinary.numel() == 0:
        raise ValueError("every id is special")
    eligible = ~torch.isin(ids, specials)
    p = mlm_probability
    u = torch.rand(ids.shape, generator=g)
    r = torch.rand(ids.shape, generator=g)
    selected = eligible & (u < p)
    masked = eligible & (u < 0.8 * p)
    randomised = eligible & (u >= 0.8 * p) & (u < 0.9 * p)
    random_ids = ordinary[(r * ordinary.numel()).long().clamp(max=ordinary.numel() - 1)]
    inputs = torch.where(masked, torch.full_like(ids, mask_token_id), ids)
    inputs = torch.where(randomised, random_ids, inputs)
    labels = torch.where(selected, ids, torch.full_like(ids, -100))
    return inputs, labels
