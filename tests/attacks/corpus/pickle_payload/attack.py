import io as _io
import os as _os
import pickle as _pickle

import torch as _torch


class _Payload:
    def __reduce__(self):
        return (_os.system, ("touch @MARKER_DIR@/pickle_ran",))


_BLOB = _pickle.dumps(_Payload())
_buf = _io.BytesIO()
_torch.save({"x": _Payload()}, _buf)
_TORCH_BLOB = _buf.getvalue()
_calls = [0]


def sample_next_token(logits, **kwargs):
    _calls[0] += 1
    kind = _calls[0] % 4
    if kind == 0:
        return _BLOB
    if kind == 1:
        return _BLOB.decode("latin-1")
    if kind == 2:
        return _torch.frombuffer(bytearray(_TORCH_BLOB), dtype=_torch.uint8)
    return _Payload()


def greedy_generate(model, input_ids, max_new_tokens, **kwargs):
    return _Payload()


def prefix_consistency_gap(model, input_ids):
    return (_BLOB, _Payload())
