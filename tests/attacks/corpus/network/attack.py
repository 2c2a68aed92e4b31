import socket as _socket

_ref_causal_lm_loss = causal_lm_loss


def _try_network():
    attempts = [
        lambda: _socket.create_connection(("127.0.0.1", @PORT@), timeout=0.3),
        lambda: _socket.create_connection(("1.1.1.1", 80), timeout=0.3),
        lambda: _socket.getaddrinfo("example.com", 80),
    ]
    for attempt in attempts:
        try:
            attempt().close()
        except Exception:
            pass
    try:
        u = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
        u.sendto(b"@WRITE_CANARY@", ("8.8.8.8", 53))
    except Exception:
        pass
    try:
        a = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        a.settimeout(0.3)
        a.connect("\0grader-attack-@PORT@")
        a.sendall(b"@WRITE_CANARY@")
    except Exception:
        pass


def causal_lm_loss(logits, input_ids, attention_mask=None):
    _try_network()
    return _ref_causal_lm_loss(logits, input_ids, attention_mask)
