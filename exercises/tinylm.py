"""TinyLM: a tiny transformer language model that runs on your Part A functions.

Provided, not an exercise. nanoGPT-shaped: token + learned position embeddings, ``n_layers``
pre-LayerNorm blocks (multi-head self-attention, then an MLP), a final LayerNorm and a linear
LM head. One flag, ``causal``, switches between a decoder (causal LM, GPT-like) and an encoder
(masked LM, BERT-like): the two differ only in the attention mask.

The mask and the attention are pluggable::

    model = TinyLM(config, seed=0)   # uses exercises.masks, looked up at each call
    model = TinyLM(config, mask_fn=my_mask, attention_fn=my_attention, seed=0)

``mask_fn(attention_mask, seq_len, causal)`` has the signature of ``build_attention_mask`` and
``attention_fn(q, k, v, mask)`` that of ``masked_attention``. When they are left as None the
model looks up ``exercises.masks.build_attention_mask`` / ``masked_attention`` at every
forward call, so editing or monkeypatching your own code takes effect immediately (and an
unfinished stub raises its ``NotImplementedError``).

Example::

    config = TinyLMConfig(vocab_size=24, max_seq_len=12, d_model=32, n_heads=2, n_layers=2,
                          causal=True)
    model = TinyLM(config, seed=0)
    logits = model(torch.tensor([[1, 2, 3]]))          # (1, 3, 24)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import torch
import torch.nn.functional as F
from torch import Tensor, nn

MaskFn = Callable[[Tensor | None, int, bool], Tensor]
AttentionFn = Callable[[Tensor, Tensor, Tensor, Tensor | None], tuple[Tensor, Tensor]]


@dataclass(frozen=True)
class TinyLMConfig:
    """Shape of a TinyLM. ``causal=False`` makes it a bidirectional (masked-LM) encoder."""

    vocab_size: int
    max_seq_len: int
    d_model: int
    n_heads: int
    n_layers: int
    causal: bool
    dropout: float = 0.0

    def __post_init__(self) -> None:
        for name in ("vocab_size", "max_seq_len", "d_model", "n_heads", "n_layers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"TinyLMConfig.{name} must be an int >= 1, got {value!r}")
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_heads={self.n_heads}")
        if not isinstance(self.causal, bool):
            raise ValueError(f"TinyLMConfig.causal must be a bool, got {self.causal!r}")
        if not isinstance(self.dropout, int | float) or not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"TinyLMConfig.dropout must be in [0, 1), got {self.dropout!r}")


def _student_masks() -> ModuleType:
    return importlib.import_module("exercises.masks")


class SelfAttention(nn.Module):
    """Multi-head self-attention whose mask and attention maths are supplied by the caller."""

    def __init__(self, config: TinyLMConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: Tensor, mask: Tensor | None, attention_fn: AttentionFn) -> Tensor:
        B, T, C = x.shape
        H = self.n_heads
        q, k, v = self.qkv(x).split(C, dim=2)  # 3 x (B, T, C)
        q = q.view(B, T, H, C // H).transpose(1, 2)  # (B, H, T, D)
        k = k.view(B, T, H, C // H).transpose(1, 2)  # (B, H, T, D)
        v = v.view(B, T, H, C // H).transpose(1, 2)  # (B, H, T, D)
        y, _ = attention_fn(q, k, v, mask)  # (B, H, T, D)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C)
        return self.drop(self.proj(y))


class MLP(nn.Module):
    def __init__(self, config: TinyLMConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.d_model, 4 * config.d_model)
        self.proj = nn.Linear(4 * config.d_model, config.d_model)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.drop(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """Pre-LN transformer block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, config: TinyLMConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.d_model)
        self.attn = SelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.d_model)
        self.mlp = MLP(config)

    def forward(self, x: Tensor, mask: Tensor | None, attention_fn: AttentionFn) -> Tensor:
        x = x + self.attn(self.ln_1(x), mask, attention_fn)
        return x + self.mlp(self.ln_2(x))


class TinyLM(nn.Module):
    """A tiny GPT/BERT-style language model: ``forward(input_ids) -> logits (B, T, V)``.

    Args:
        config: the model's shape and its ``causal`` flag.
        mask_fn: ``build_attention_mask``-like function, or None to use
            ``exercises.masks.build_attention_mask`` (looked up at each call).
        attention_fn: ``masked_attention``-like function, or None to use
            ``exercises.masks.masked_attention`` (looked up at each call).
        seed: the weights are drawn from a private ``torch.Generator`` seeded with it, so the
            same seed gives the same model and the global RNG is left untouched. None draws a
            fresh seed from the OS (see ``model.seed``).

    Attributes:
        max_seq_len: the longest input accepted (``config.max_seq_len``).
        mask_fn, attention_fn: as given; may be reassigned at any time.
        seed: the seed the weights were drawn from.

    Initialisation: embeddings N(0, 1), linear weights N(0, 1/fan_in) (the residual output
    projections further divided by sqrt(2 * n_layers)), biases 0, LayerNorm weight 1 and
    bias 0, so activations and logits are of order 1 from the start. Dropout, when
    ``config.dropout > 0`` and the model is in train mode, uses torch's global RNG as usual.
    """

    def __init__(
        self,
        config: TinyLMConfig,
        *,
        mask_fn: MaskFn | None = None,
        attention_fn: AttentionFn | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.max_seq_len: int = config.max_seq_len
        self.mask_fn = mask_fn
        self.attention_fn = attention_fn
        # nn layers draw their default init from the global RNG: fork it so that its state
        # is restored afterwards; every weight is then redrawn from the private generator
        with torch.random.fork_rng(devices=[]):
            self.tok_emb = nn.Embedding(config.vocab_size, config.d_model)
            self.pos_emb = nn.Embedding(config.max_seq_len, config.d_model)
            self.drop = nn.Dropout(config.dropout)
            self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
            self.ln_f = nn.LayerNorm(config.d_model)
            self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        generator = torch.Generator()
        if seed is None:
            generator.seed()
        else:
            generator.manual_seed(seed)
        self.seed: int = generator.initial_seed()
        self._init_weights(generator)

    @torch.no_grad()
    def _init_weights(self, generator: torch.Generator) -> None:
        residual_scale = 1.0 / math.sqrt(2 * self.config.n_layers)
        for name, p in self.named_parameters():  # a fixed order, so a fixed stream
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.fill_(1.0)
            elif name.endswith(".bias"):
                p.zero_()
            elif name.endswith("_emb.weight"):
                p.normal_(0.0, 1.0, generator=generator)
            else:  # nn.Linear weight (out_features, in_features)
                std = 1.0 / math.sqrt(p.size(1))
                if name.endswith("attn.proj.weight") or name.endswith("mlp.proj.weight"):
                    std *= residual_scale
                p.normal_(0.0, std, generator=generator)

    @property
    def causal(self) -> bool:
        return self.config.causal

    def forward(self, input_ids: Tensor, attention_mask: Tensor | None = None) -> Tensor:
        """``input_ids`` (B, T) int, ``attention_mask`` (B, T) 0/1 or None -> logits (B, T, V).

        Raises ``ValueError`` if T > ``max_seq_len`` (crop the context first) or the input
        is not 2-D.
        """
        if input_ids.dim() != 2:
            raise ValueError(f"input_ids must be (B, T), got shape {tuple(input_ids.shape)}")
        B, T = input_ids.shape
        if T > self.max_seq_len:
            raise ValueError(
                f"sequence length {T} exceeds max_seq_len={self.max_seq_len}; "
                f"crop the context to its last {self.max_seq_len} tokens"
            )
        mask_fn = self.mask_fn or _student_masks().build_attention_mask
        attention_fn = self.attention_fn or _student_masks().masked_attention

        pos = torch.arange(T, device=input_ids.device)  # (T,)
        x = self.drop(self.tok_emb(input_ids) + self.pos_emb(pos))  # (B, T, C)
        mask = mask_fn(attention_mask, T, self.config.causal)  # (B or 1, 1, T, T) bool
        if isinstance(mask, Tensor):
            mask = mask.to(x.device)
        for block in self.blocks:
            x = block(x, mask, attention_fn)  # (B, T, C)
        return self.lm_head(self.ln_f(x))  # (B, T, V)
