# ALTERNATIVE loop_specials_index_assign: a student's version: the special mask OR-ed together
# id by id in a Python loop, the draws made with Tensor.uniform_ / Tensor.random_ on new
# tensors (generator passed), and the corruption written by boolean index assignment on a
# clone. A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if not (0.0 <= mlm_probability <= 1.0):
        raise ValueError(f"bad mlm_probability {mlm_probability}")
    if generator is None:
        generator = torch.Generator(device=input_ids.device)
        generator.seed()
    is_special = torch.zeros(input_ids.shape, dtype=torch.bool, device=input_ids.device)
    for s in special_token_ids:
        is_special |= input_ids == s
    allowed = [i for i in range(vocab_size) if i not in special_token_ids]
    if not allowed:
        raise ValueError("every id is special")
    allowed = torch.tensor(allowed, device=input_ids.device)

    inputs = input_ids.clone().to(torch.int64)
    labels = inputs.clone()
    coin = torch.empty(input_ids.shape, device=input_ids.device).uniform_(generator=generator)
    picked = (coin < mlm_probability) & ~is_special
    labels[~picked] = -100

    split = torch.empty(input_ids.shape, device=input_ids.device).uniform_(generator=generator)
    replace = picked & (split < 0.8)
    randomise = picked & (split >= 0.8) & (split < 0.9)
    inputs[replace] = mask_token_id
    slot = torch.empty(input_ids.shape, dtype=torch.int64, device=input_ids.device)
    slot.random_(0, len(allowed), generator=generator)
    inputs[randomise] = allowed[slot[randomise]]
    return inputs, labels
