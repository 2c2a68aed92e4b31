# ALTERNATIVE torchtune_generation: torchtune's generation utilities, adapted: sample() divides
# by the temperature, keeps the logits >= the top-k pivot (v.select(-1, -1).unsqueeze(-1),
# torch.where(logits < pivot, -inf, logits): ties with the k-th kept) and draws with
# multinomial_sample_one: argmax(probs / q), q = empty_like(probs).exponential_(1), which is how
# torch.multinomial draws one sample (so the same generator gives the same ids). generate()
# makes the first token before the loop, tracks stop tokens with torch.isin and stops when all
# rows have stopped. Adapted to the contract: temperature 0 is the argmax (torchtune divides by
# max(temperature, 1e-5)), a top-p step on a descending sort, q drawn from `generator`,
# finished rows continued with eos (torchtune zeroes them at the end), eval mode and modes
# restored. A valid implementation: must keep full marks.
import torch


def _modules(model):
    return list(model.modules()) if isinstance(model, torch.nn.Module) else []


def _check(prompt, max_generated_tokens):
    if prompt.ndim != 2 or prompt.size(1) == 0:
        raise ValueError("prompt must be (B, T0) with T0 >= 1")
    if max_generated_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")


def multinomial_sample_one(probs, generator):
    q = torch.empty_like(probs).exponential_(1, generator=generator)
    return torch.argmax(probs / q, dim=-1, keepdim=True).to(dtype=torch.int64)


def _top_p(probs, top_p):
    sorted_probs, idx = torch.sort(probs, dim=-1, descending=True, stable=True)
    before = sorted_probs.cumsum(dim=-1) - sorted_probs
    remove_sorted = before >= top_p
    remove_sorted[..., 0] = False
    remove = torch.zeros_like(remove_sorted).scatter(-1, idx, remove_sorted)
    probs = probs.masked_fill(remove, 0.0)
    return probs / probs.sum(dim=-1, keepdim=True)


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and top_p <= 0):
        raise ValueError("temperature >= 0, top_k >= 1 and top_p > 0 are required")
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        pivot = v.select(-1, -1).unsqueeze(-1)
        logits = torch.where(logits < pivot, -float("Inf"), logits)
    probs = torch.nn.functional.softmax(logits, dim=-1)
    if top_p is not None and top_p < 1:
        probs = _top_p(probs, top_p)
    if generator is None:
        generator = torch.Generator(device=probs.device)
        generator.seed()
    return multinomial_sample_one(probs, generator).squeeze(-1)


def _generate(model, prompt, max_generated_tokens, next_token, stop_token):
    _check(prompt, max_generated_tokens)
    generated_tokens = prompt.clone()
    if max_generated_tokens == 0:
        return generated_tokens
    bsz = prompt.size(0)
    stop_tokens = None if stop_token is None else torch.tensor([stop_token], device=prompt.device)
    stop_token_reached = torch.zeros(bsz, dtype=torch.bool, device=prompt.device)
    modules = _modules(model)
    modes = [m.training for m in modules]
    try:
        for m in modules:
            m.training = False
        with torch.no_grad():

            def step():
                x = generated_tokens[:, -model.max_seq_len :]
                tokens = next_token(model(x)[:, -1]).to(prompt.dtype).reshape(bsz, 1)
                if stop_tokens is not None:
                    tokens = torch.where(stop_token_reached[:, None], stop_token, tokens)
                return tokens

            tokens = step()
            generated_tokens = torch.cat([generated_tokens, tokens], dim=-1)
            if stop_tokens is not None:
                stop_token_reached |= torch.isin(tokens, stop_tokens).flatten()
                if stop_token_reached.all().item():
                    return generated_tokens
            for _ in range(max_generated_tokens - 1):
                tokens = step()
                generated_tokens = torch.cat([generated_tokens, tokens], dim=-1)
                if stop_tokens is not None:
                    stop_token_reached |= torch.isin(tokens, stop_tokens).flatten()
                    if stop_token_reached.all().item():
                        break
    finally:
        for m, mode in zip(modules, modes, strict=True):
            m.training = mode
    return generated_tokens


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    return _generate(model, input_ids, max_new_tokens, lambda lg: lg.argmax(-1), eos_token_id)


def sample_generate(
    model,
    input_ids,
    max_new_tokens,
    *,
    temperature=1.0,
    top_k=None,
    top_p=None,
    generator=None,
    eos_token_id=None,
):
    if generator is None:
        generator = torch.Generator(device=input_ids.device)
        generator.seed()
    return _generate(
        model,
        input_ids,
        max_new_tokens,
        lambda lg: sample_next_token(
            lg, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        ),
        eos_token_id,
    )


def prefix_consistency_gap(model, input_ids):
    if input_ids.ndim != 2 or input_ids.size(0) != 1 or input_ids.size(1) == 0:
        raise ValueError("input_ids must be (1, T)")
    T = input_ids.size(1)
    if T > model.max_seq_len:
        raise ValueError("too long for the model")
    modules = _modules(model)
    modes = [m.training for m in modules]
    try:
        for m in modules:
            m.training = False
        with torch.no_grad():
            full = model(input_ids)[0].double()
            rows = [model(input_ids[:, : t + 1])[0, t].double() for t in range(T)]
    finally:
        for m, mode in zip(modules, modes, strict=True):
            m.training = mode
    return (full - torch.stack(rows)).abs().amax(dim=-1).to(torch.float32)
