"""Re-pin the public tests' reference answers (``grader/suites/public/expected.json``).

    python scripts/pin_public.py            # rewrite the file from solutions/
    python scripts/pin_public.py --check    # exit 1 if the file differs from a fresh recording

Run it after changing solutions/ or a public test; `grader release` pins afresh anyway.
"""

from __future__ import annotations

import argparse
import sys

from grader.suite.pinned import PINNED_PATH, record_public_expected, render_expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render_expected(record_public_expected())
    if args.check:
        if not PINNED_PATH.exists() or PINNED_PATH.read_text(encoding="utf-8") != text:
            print(f"{PINNED_PATH} is stale: run python scripts/pin_public.py", file=sys.stderr)
            return 1
        print(f"{PINNED_PATH} is up to date")
        return 0
    PINNED_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PINNED_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
