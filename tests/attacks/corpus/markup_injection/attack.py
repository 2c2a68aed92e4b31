_EvilError = type("Evil\u202e\x1b[31mError\r", (Exception,), {})


def mask_tokens(input_ids, **kwargs):
    raise _EvilError(
        "ESCAPED-TEXT <script>alert(document.cookie)</script><img src=x onerror=alert(1)>"
        "\x1b[2J\x1b[H\x1b[32mALL TESTS PASSED 100/100\x1b[0m"
        "\rcorruption: 10/10 passed\x07\x9b31m"
        "\u202eevil\u202c [click](javascript:alert(1))"
        "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07"
    )
