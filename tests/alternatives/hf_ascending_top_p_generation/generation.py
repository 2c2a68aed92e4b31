# ALTERNATIVE hf_ascending_top_p_generation: today's Hugging Face logits warpers and loop:
# TemperatureLogitsWarper (scores / t), TopKLogitsWarper (scores < topk(...)[0][..., -1, None]
# filled with -inf), TopPLogitsWarper (sort ascending, cumulative <= 1 - top_p removed, the
# last (most likely) token always kept), and `unfinished_sequences` arithmetic for eos
# (next = next * unfinished + eos * (1 - unfinished)). A valid implementation: must keep full
# marks.
import torch


class _Inference:
    def __init__(self, model):
        self.modules = list(model.modules()) if isinstance(model, torch.nn.Module) else []

    def __enter__(self):
        self.modes = [(m, m.training) for m in self.modules]
        for m in self.modules:
            m.training = False
        self.grad = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.grad)
        for m, mode in self.modes:
            m.training = mode
        return False


def _warp(scores, temperature, top_k, top_p):
    scores = scores / temperature
    if top_k is not None:
        top_k = min(top_k, scores.size(-1))
        indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
        scores = scores.masked_fill(indices_to_remove, -float("inf"))
    if top_p is not None and top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(scores, descending=False)
        cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
        sorted_indices_to_remove[..., -1:] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(
            1, sorted_indices, sorted_indices_to_remove
        )
        scores = scores.masked_fill(indices_to_remove, -float("inf"))
    return scores


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and top_p <= 0):
        raise ValueError("temperature must be >= 0, top_k >= 1 and top_p > 0")
    scores = logits.to(torch.float64 if logits.dtype == torch.float64 else torch.float32)
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    probs = _warp(scores, temperature, top_k, top_p).softmax(dim=-1)
    if generator is None:
        generator = torch.Generator(device=probs.device)
        generator.seed()
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)


def _loop(model, input_ids, max_new_tokens, pick, eos_token_id):
    if input_ids.dim() != 2 or input_ids.shape[1] < 1 or max_new_tokens < 0:
        raise ValueError("input_ids must be (B, T0 >= 1) and max_new_tokens >= 0")
    ids = input_ids.clone()
    unfinished = torch.ones(ids.shape[0], dtype=ids.dtype, device=ids.device)
    with _Inference(model):
        for _ in range(max_new_tokens):
            logits = model(ids[:, -model.max_seq_len :])
            next_tokens = pick(logits[:, -1, :]).to(ids.dtype)
            if eos_token_id is not None:
                next_tokens = next_tokens * unfinished + eos_token_id * (1 - unfinished)
            ids = torch.cat([ids, next_tokens[:, None]], dim=-1)
            if eos_token_id is not None:
                unfinished = unfinished & (next_tokens != eos_token_id).to(ids.dtype)
                if unfinished.max() == 0:
                    break
    return ids


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    return _loop(model, input_ids, max_new_tokens, lambda s: torch.argmax(s, dim=-1), eos_token_id)


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
        generator = torch.Generator(device=input_ids.device)
        generator.seed()

    def pick(s):
        return sample_next_token(
            s, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        )

    return _loop(model, input_ids, max_new_tokens, pick, eos_token_id)


def prefix_consistency_gap(model, input_ids):
    if input_ids.dim() != 2 or input_ids.shape[0] != 1 or input_ids.shape[1] < 1:
        raise ValueError("input_ids must be (1, T)")
    if input_ids.shape[1] > model.max_seq_len:
        raise ValueError("T exceeds max_seq_len")
    with _Inference(model):
        full = model(input_ids)[0].double()
        gap = [
            (full[t] - model(input_ids[:, : t + 1])[0, -1].double()).abs().amax()
            for t in range(input_ids.shape[1])
        ]
    return torch.stack(gap).float()
