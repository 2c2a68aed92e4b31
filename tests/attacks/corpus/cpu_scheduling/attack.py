import os as _os

_ref_causal_lm_loss = causal_lm_loss


def causal_lm_loss(logits, input_ids, attention_mask=None):
    # leave the CPU the batch pinned this worker to (to spin on the CPUs of classmates graded
    # in parallel), or change how the scheduler treats it
    done = []
    for what, change in (
        ("sched_setaffinity", lambda: _os.sched_setaffinity(0, range(_os.cpu_count() or 1))),
        ("sched_setscheduler", lambda: _os.sched_setscheduler(0, _os.SCHED_BATCH,
                                                              _os.sched_param(0))),
        ("setpriority", lambda: _os.setpriority(_os.PRIO_PROCESS, 0, 0)),
    ):
        try:
            change()
            done.append(what)
        except OSError:
            pass
    if done:
        raise RuntimeError(f"ATTACK-SUCCEEDED: the worker could call {', '.join(done)}")
    return _ref_causal_lm_loss(logits, input_ids, attention_mask)
