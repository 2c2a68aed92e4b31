import time as _time

_ref_mask_tokens = mask_tokens


def mask_tokens(input_ids, **kwargs):
    # correct, but each call sleeps just under the per-call timeout (1.5 s in the corpus's
    # limits), so no single call times out (0.5 s of slack for a loaded machine)
    _time.sleep(1.0)
    return _ref_mask_tokens(input_ids, **kwargs)
