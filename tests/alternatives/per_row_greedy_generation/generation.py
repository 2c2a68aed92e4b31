# ALTERNATIVE per_row_greedy_generation: a student's greedy decoding one row at a time (each
# row stops at its own generated eos, then the rows are padded with eos to the longest),
# a preallocated (B, T0 + n) buffer for sampling that is filled column by column and cut at
# the early stop, gaps computed from the prefixes with torch.inference_mode, and the modes
# saved in a dict. A valid implementation: must keep full marks.
import torch


def _check(input_ids, max_new_tokens):
    if input_ids.ndim != 2 or input_ids.shape[1] == 0:
        raise ValueError("prompt must be (B, T0) with T0 >= 1")
    if max_new_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")


def _modes(model):
    return {m: m.training for m in model.modules()} if isinstance(model, torch.nn.Module) else {}


def _eval(modes):
    for m in modes:
        m.training = False


def _restore(modes):
    for m, was in modes.items():
        m.training = was


def greedy_generate(model, input_ids, max_new_tokens, *, eos_token_id=None):
    _check(input_ids, max_new_tokens)
    modes = _modes(model)
    _eval(modes)
    rows = []
    try:
        with torch.no_grad():
            for b in range(input_ids.shape[0]):
                row = input_ids[b : b + 1].clone()
                for _ in range(max_new_tokens):
                    nxt = model(row[:, -model.max_seq_len :])[:, -1].argmax(-1)
                    row = torch.cat([row, nxt[:, None].to(row.dtype)], dim=1)
                    if eos_token_id is not None and int(nxt) == eos_token_id:
                        break
                rows.append(row[0])
    finally:
        _restore(modes)
    width = max(r.numel() for r in rows)
    fill = 0 if eos_token_id is None else eos_token_id
    out = torch.full((len(rows), width), fill, dtype=input_ids.dtype, device=input_ids.device)
    for b, r in enumerate(rows):
        out[b, : r.numel()] = r
    return out


def sample_next_token(logits, *, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature < 0:
        raise ValueError("temperature < 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k < 1")
    if top_p is not None and top_p <= 0:
        raise ValueError("top_p <= 0")
    x = logits.double() if logits.dtype == torch.float64 else logits.float()
    if temperature == 0:
        return x.argmax(dim=-1)
    x = x / temperature
    if top_k is not None and top_k < x.shape[-1]:
        kth = x.topk(top_k, dim=-1).values[:, -1:]
        x = torch.where(x >= kth, x, torch.full_like(x, float("-inf")))
    p = x.softmax(dim=-1)
    if top_p is not None and top_p < 1:
        sp, order = p.sort(dim=-1, descending=True, stable=True)
        keep_sorted = (sp.cumsum(-1) - sp) < top_p
        keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
        p = torch.where(keep, p, torch.zeros_like(p))
    if generator is None:
        generator = torch.Generator(device=p.device)
        generator.seed()
    return torch.multinomial(p, 1, generator=generator).view(-1)


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
    _check(input_ids, max_new_tokens)
    if generator is None and temperature != 0:
        generator = torch.Generator(device=input_ids.device)
        generator.seed()
    B, T0 = input_ids.shape
    buf = torch.empty(B, T0 + max_new_tokens, dtype=input_ids.dtype, device=input_ids.device)
    buf[:, :T0] = input_ids
    done = torch.zeros(B, dtype=torch.bool, device=input_ids.device)
    length = T0
    modes = _modes(model)
    _eval(modes)
    try:
        with torch.no_grad():
            while length < T0 + max_new_tokens:
                logits = model(buf[:, max(0, length - model.max_seq_len) : length])
                nxt = sample_next_token(
                    logits[:, -1],
                    temperature=temperature,
                    top_k=top_k,
                    top_p=top_p,
                    generator=generator,
                ).to(buf.dtype)
                if eos_token_id is not None:
                    nxt[done] = eos_token_id
                    done |= nxt == eos_token_id
                buf[:, length] = nxt
                length += 1
                if eos_token_id is not None and bool(done.all()):
                    break
    finally:
        _restore(modes)
    return buf[:, :length].clone()


def prefix_consistency_gap(model, input_ids):
    if input_ids.ndim != 2 or input_ids.shape[0] != 1 or input_ids.shape[1] == 0:
        raise ValueError("input_ids must be (1, T)")
    T = input_ids.shape[1]
    if T > model.max_seq_len:
        raise ValueError("too long")
    modes = _modes(model)
    _eval(modes)
    try:
        with torch.inference_mode():
            full = model(input_ids)[0].to(torch.float64)
            out = torch.zeros(T, dtype=torch.float32, device=full.device)
            for t in range(T):
                prefix = model(input_ids[:, : t + 1])[0, t].to(torch.float64)
                out[t] = (full[t] - prefix).abs().max()
    finally:
        _restore(modes)
    return out
