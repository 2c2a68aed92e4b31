# ALTERNATIVE randperm_fixed_count: per row, a random permutation of the eligible positions
# and a count drawn from Binomial(n_eligible, p) (so the selection is still independent per
# position in law), then a per-row split by a second permutation with binomial counts.
# A very different random procedure. A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if not (0.0 <= mlm_probability <= 1.0):
        raise ValueError("mlm_probability out of range")
    if generator is None:
        generator = torch.Generator()
        generator.seed()
    ids = input_ids.long()
    flat = ids.reshape(-1, ids.shape[-1]) if ids.dim() > 0 else ids.reshape(1, 1)
    specials = set(int(s) for s in special_token_ids)
    ordinary = torch.tensor([i for i in range(vocab_size) if i not in specials])
    if ordinary.numel() == 0:
        raise ValueError("no ordinary id")
    inputs = flat.clone()
    labels = torch.full_like(flat, -100)
    for b in range(flat.shape[0]):
        row = flat[b]
        pos = torch.tensor(
            [t for t in range(row.numel()) if int(row[t]) not in specials], dtype=torch.long
        )
        n = pos.numel()
        if n == 0:
            continue
        k = int(
            torch.binomial(
                torch.tensor(float(n)), torch.tensor(mlm_probability), generator=generator
            )
        )
        chosen = pos[torch.randperm(n, generator=generator)[:k]]
        labels[b, chosen] = row[chosen]
        # split the k chosen positions: multinomial counts (0.8, 0.1, 0.1)
        kinds = (
            torch.multinomial(
                torch.tensor([0.8, 0.1, 0.1]), k, replacement=True, generator=generator
            )
            if k
            else torch.zeros(0, dtype=torch.long)
        )
        m = chosen[kinds == 0]
        r = chosen[kinds == 1]
        inputs[b, m] = mask_token_id
        if r.numel():
            inputs[b, r] = ordinary[
                torch.randint(ordinary.numel(), (r.numel(),), generator=generator)
            ]
    return inputs.reshape(ids.shape), labels.reshape(ids.shape)
