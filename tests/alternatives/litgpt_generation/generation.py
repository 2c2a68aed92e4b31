# ALTERNATIVE litgpt_generation: LitGPT's sample() / sample_top_p() / generate(), adapted:
# top-k FIRST on the raw logits (litgpt's order: dividing by a positive temperature afterwards
# keeps the same tokens), then logits / temperature, then sample_top_p on an ASCENDING sort with
# `cumulative_probs <= 1 - top_p` removed and the most likely token always kept, softmax and
# one multinomial draw. Adapted to the contract: top-k keeps ties with the k-th value (litgpt
# scatters torch.topk's k values into -inf, dropping ties), temperature 0 is greedy (litgpt
# would sample the raw logits), the draw uses `generator`, and the loop collects the new
# tokens in a list, torch.cat at the end, with sticky eos. A valid implementation: full marks.
import torch


class _Eval:
    def __init__(self, model):
        self.modules = list(model.modules()) if isinstance(model, torch.nn.Module) else []

    def __enter__(self):
        self.modes = [m.training for m in self.modules]
        for m in self.modules:
            m.training = False
        self.grad = torch.no_grad()
        self.grad.__enter__()

    def __exit__(self, *exc):
        self.grad.__exit__(*exc)
        for m, mode in zip(self.modules, self.modes, strict=True):
            m.training = mode


def _check(input_ids, max_new_tokens):
    if input_ids.dim() != 2 or input_ids.shape[1] < 1:
        raise ValueError("input_ids must be (B, T0), T0 >= 1")
    if max_new_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")


def sample_top_p(logits, top_p):
    sorted_logits, sorted_indices = torch.sort(logits, descending=False, stable=True)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -1:] = False  # keep at least one (the most likely)
    indices_to_remove = sorted_indices_to_remove.scatter(
        -1, sorted_indices, sorted_indices_to_remove
    )
    return logits.masked_fill(indices_to_remove, float("-inf"))


def multinomial_num_samples_1(probs, generator):
    return torch.multinomial(probs, num_samples=1, generator=generator)


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and top_p <= 0:
        raise ValueError("top_p must be > 0")
    logits = logits.float() if logits.dtype != torch.float64 else logits
    if temperature == 0.0:
        return torch.argmax(logits, dim=-1)
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        logits = torch.where(logits < v[..., [-1]], float("-inf"), logits)
    logits = logits / temperature
    if top_p is not None and top_p < 1.0:
        logits = sample_top_p(logits, top_p)
    probs = torch.nn.functional.softmax(logits, dim=-1)
    if generator is None:
        generator = torch.Generator(device=probs.device)
        generator.seed()
    return multinomial_num_samples_1(probs, generator).squeeze(-1)


def _generate(model, prompt, max_returned_tokens, next_token, eos_id):
    _check(prompt, max_returned_tokens)
    tokens = [prompt.clone()]
    done = torch.zeros(prompt.shape[0], dtype=torch.bool, device=prompt.device)
    with _Eval(model):
        for _ in range(max_returned_tokens):
            x = torch.cat(tokens, dim=1)[:, -model.max_seq_len :]
            logits = model(x)[:, -1]
            token = next_token(logits).to(prompt.device, prompt.dtype)
            if eos_id is not None:
                token = torch.where(done, torch.full_like(token, eos_id), token)
                done = done | (token == eos_id)
            tokens.append(token[:, None])
            if eos_id is not None and bool(done.all()):
                break
    return torch.cat(tokens, dim=1)


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    return _generate(model, input_ids, max_new_tokens, lambda lg: lg.argmax(dim=-1), eos_token_id)


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

    def next_token(lg):
        return sample_next_token(
            lg, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        )

    return _generate(model, input_ids, max_new_tokens, next_token, eos_token_id)


def prefix_consistency_gap(model, input_ids):
    if input_ids.dim() != 2 or input_ids.shape[0] != 1 or input_ids.shape[1] < 1:
        raise ValueError("input_ids must be (1, T)")
    T = input_ids.shape[1]
    if T > model.max_seq_len:
        raise ValueError("T exceeds model.max_seq_len")
    with _Eval(model):
        full = model(input_ids)[0].double()
        gap = torch.stack(
            [(full[t] - model(input_ids[:, : t + 1])[0, -1].double()).abs().max() for t in range(T)]
        )
    return gap.float()
