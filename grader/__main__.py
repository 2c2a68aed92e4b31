"""`python -m grader` is the `grader` command."""

from grader.cli import main

main()
