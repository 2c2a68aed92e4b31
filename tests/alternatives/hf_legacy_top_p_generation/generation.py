# ALTERNATIVE hf_legacy_top_p_generation: the classic `top_k_top_p_filtering` of older
# Hugging Face / GPT-2 scripts: descending sort, `sorted_indices_to_remove = cumulative >
# top_p` shifted right by one so the crossing token stays, indices scattered back and filled
# with -inf on a copy; greedy and sampled loops written separately, under torch.inference_mode.
# A valid implementation: must keep full marks.
import torch
import torch.nn.functional as F


def _filter(logits, top_k=None, top_p=None, filter_value=-float("Inf")):
    logits = logits.clone()
    if top_k is not None:
        top_k = min(top_k, logits.size(-1))
        indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
        logits[indices_to_remove] = filter_value
    if top_p is not None and top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(
            1, sorted_indices, sorted_indices_to_remove
        )
        logits[indices_to_remove] = filter_value
    return logits


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0:
        raise ValueError("negative temperature")
    if top_k is not None and top_k <= 0:
        raise ValueError("top_k must be positive")
    if top_p is not None and not top_p > 0:
        raise ValueError("top_p must be positive")
    x = logits.to(torch.float64 if logits.dtype == torch.float64 else torch.float32)
    if temperature == 0:
        return x.argmax(-1)
    x = _filter(x / temperature, top_k=top_k, top_p=top_p)
    probs = F.softmax(x, dim=-1)
    if generator is None:
        generator = torch.Generator(device=x.device)
        generator.seed()
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


class _Modes:
    def __init__(self, model):
        self.modules = list(model.modules()) if isinstance(model, torch.nn.Module) else []
        self.flags = [m.training for m in self.modules]

    def __enter__(self):
        for m in self.modules:
            m.training = False
        return self

    def __exit__(self, *a):
        for m, f in zip(self.modules, self.flags, strict=True):
            m.training = f


def _validate(input_ids, n):
    if input_ids.ndim != 2 or input_ids.shape[1] < 1:
        raise ValueError("prompt must be (B, T0), T0 >= 1")
    if n < 0:
        raise ValueError("max_new_tokens must be >= 0")


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    _validate(input_ids, max_new_tokens)
    generated = input_ids.clone()
    finished = torch.zeros(len(input_ids), dtype=torch.bool)
    with _Modes(model), torch.inference_mode():
        for _ in range(max_new_tokens):
            logits = model(generated[:, -model.max_seq_len :])[:, -1, :]
            tok = logits.argmax(dim=-1).to(generated.dtype)
            if eos_token_id is not None:
                tok[finished] = eos_token_id
                finished = finished | (tok == eos_token_id)
            generated = torch.cat([generated, tok.unsqueeze(1)], dim=1)
            if eos_token_id is not None and bool(finished.all()):
                break
    return generated.clone()


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
    _validate(input_ids, max_new_tokens)
    if generator is None:
        generator = torch.Generator()
        generator.seed()
    generated = input_ids.clone()
    finished = torch.zeros(len(input_ids), dtype=torch.bool)
    with _Modes(model), torch.inference_mode():
        for _ in range(max_new_tokens):
            logits = model(generated[:, -model.max_seq_len :])[:, -1, :]
            tok = sample_next_token(
                logits, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
            ).to(generated.dtype)
            if eos_token_id is not None:
                tok[finished] = eos_token_id
                finished = finished | (tok == eos_token_id)
            generated = torch.cat([generated, tok.unsqueeze(1)], dim=1)
            if eos_token_id is not None and bool(finished.all()):
                break
    return generated.clone()


def prefix_consistency_gap(model, input_ids):
    if input_ids.ndim != 2 or input_ids.shape[0] != 1 or input_ids.shape[1] == 0:
        raise ValueError("input_ids must be (1, T), T >= 1")
    T = input_ids.shape[1]
    if T > model.max_seq_len:
        raise ValueError("T exceeds max_seq_len")
    with _Modes(model), torch.inference_mode():
        full = model(input_ids)[0]
        gaps = [
            (full[t] - model(input_ids[:, : t + 1])[0, t]).abs().max().double() for t in range(T)
        ]
    return torch.stack(gaps).float().clone()
