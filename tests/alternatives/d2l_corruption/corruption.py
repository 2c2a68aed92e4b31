# ALTERNATIVE d2l_corruption: Dive into Deep Learning's _get_mlm_data_from_tokens /
# _replace_mlm_tokens, adapted: per sequence, the candidate positions (the non-special ones)
# are shuffled (d2l's random.shuffle, here torch.randperm with the generator) and visited in that
# order; each is "if random.random() < 0.8: <mask>, elif random.random() < 0.5: keep, else a
# random token". Adapted to the contract: each candidate is selected independently with
# mlm_probability (d2l takes a fixed round(15%) count, which the contract forbids), the random
# token is drawn from the ordinary ids only (d2l's random.choice takes the whole vocabulary),
# and every draw comes from `generator`. A valid implementation: must keep full marks.
import torch


def mask_tokens(
    input_ids, *, mask_token_id, vocab_size, special_token_ids, mlm_probability=0.15, generator=None
):
    if not 0.0 <= mlm_probability <= 1.0:
        raise ValueError("mlm_probability must be in [0, 1]")
    device = input_ids.device
    if generator is None:
        generator = torch.Generator(device=device)
        generator.seed()
    specials = set(int(s) for s in special_token_ids)
    vocab = [i for i in range(vocab_size) if i not in specials]
    if not vocab:
        raise ValueError("no ordinary id to draw a random token from")
    vocab = torch.tensor(vocab, dtype=torch.int64, device=device)
    tokens = (
        input_ids.to(torch.int64).reshape(-1, input_ids.shape[-1])
        if input_ids.dim()
        else (input_ids.to(torch.int64).reshape(1, 1))
    )
    mlm_input_tokens = tokens.clone()
    labels = torch.full_like(tokens, -100)
    special_t = torch.tensor(sorted(specials), dtype=torch.int64, device=device)
    for row in range(tokens.shape[0]):
        candidate_pred_positions = (~torch.isin(tokens[row], special_t)).nonzero().flatten()
        order = torch.randperm(len(candidate_pred_positions), generator=generator, device=device)
        candidate_pred_positions = candidate_pred_positions[order]
        n = len(candidate_pred_positions)
        chosen = torch.rand(n, generator=generator, device=device) < mlm_probability
        first = torch.rand(n, generator=generator, device=device)
        second = torch.rand(n, generator=generator, device=device)
        random_word = vocab[torch.randint(len(vocab), (n,), generator=generator, device=device)]
        pos = candidate_pred_positions[chosen]
        first, second, random_word = first[chosen], second[chosen], random_word[chosen]
        original = tokens[row, pos]
        masked_token = torch.where(
            first < 0.8, mask_token_id, torch.where(second < 0.5, original, random_word)
        )
        mlm_input_tokens[row, pos] = masked_token
        labels[row, pos] = original
    return mlm_input_tokens.reshape(input_ids.shape), labels.reshape(input_ids.shape)
