# ALTERNATIVE hf_style_generation: Hugging Face style logits warpers (temperature, top-k with
# -inf filling, top-p on an ASCENDING sort with `cumulative <= 1 - top_p` removal), softmax of
# the filtered logits, a while loop for generation, greedy via argmax of the probabilities,
# modes saved per module. A valid implementation: must keep full marks.
import torch


def _temperature(scores, t):
    return scores / t


def _top_k(scores, k):
    k = min(k, scores.size(-1))
    threshold = torch.topk(scores, k)[0][..., -1, None]
    return scores.masked_fill(scores < threshold, -float("inf"))


def _top_p(scores, p):
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove_sorted = cumulative <= (1 - p)
    remove_sorted[..., -1:] = False  # min_tokens_to_keep = 1
    remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
    return scores.masked_fill(remove, -float("inf"))


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and top_p <= 0:
        raise ValueError("top_p must be > 0")
    scores = logits.float() if logits.dtype != torch.float64 else logits.clone()
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    scores = _temperature(scores, temperature)
    if top_k is not None:
        scores = _top_k(scores, top_k)
    if top_p is not None and top_p < 1.0:
        scores = _top_p(scores, top_p)
    probs = torch.softmax(scores, dim=-1)
    if generator is None:
        generator = torch.Generator(device=logits.device)
        generator.seed()
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)


class _EvalNoGrad:
    def __init__(self, model):
        self.model = model
        self.saved = []

    def __enter__(self):
        if isinstance(self.model, torch.nn.Module):
            self.saved = [(m, m.training) for m in self.model.modules()]
            self.model.eval()
        self.grad = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.grad)
        for m, mode in self.saved:
            m.training = mode


def _loop(model, input_ids, max_new_tokens, pick, eos_token_id):
    if input_ids.ndim != 2 or input_ids.shape[1] == 0:
        raise ValueError("input_ids must be (B, T0), T0 >= 1")
    if max_new_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")
    out = input_ids.clone()
    unfinished = torch.ones(out.shape[0], dtype=torch.long, device=out.device)
    steps = 0
    with _EvalNoGrad(model):
        while steps < max_new_tokens:
            window = out[:, -model.max_seq_len :]
            next_tokens = pick(model(window)[:, -1, :])
            if eos_token_id is not None:
                # finished rows get eos (HF: next * unfinished + pad * (1 - unfinished))
                next_tokens = next_tokens * unfinished + eos_token_id * (1 - unfinished)
                unfinished = unfinished & (next_tokens != eos_token_id).long()
            out = torch.cat([out, next_tokens[:, None].to(out.dtype)], dim=-1)
            steps += 1
            if eos_token_id is not None and unfinished.max() == 0:
                break
    return out


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    return _loop(
        model,
        input_ids,
        max_new_tokens,
        lambda logits: torch.softmax(logits.float(), -1).argmax(-1),
        eos_token_id,
    )


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
    if generator is None and temperature != 0:
        generator = torch.Generator()
        generator.seed()

    def pick(logits):
        return sample_next_token(
            logits, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        )

    return _loop(model, input_ids, max_new_tokens, pick, eos_token_id)


def prefix_consistency_gap(model, input_ids):
    if input_ids.ndim != 2 or input_ids.shape[0] != 1:
        raise ValueError("input_ids must be (1, T)")
    T = input_ids.shape[1]
    if T < 1 or T > model.max_seq_len:
        raise ValueError("bad length")
    with _EvalNoGrad(model):
        full = model(input_ids)[0]
        rows = [(full[t] - model(input_ids[:, : t + 1])[0, -1]).abs().amax() for t in range(T)]
    return torch.stack(rows).float()
