"""Reference solutions: same modules, names and signatures as ``exercises/``.

Trusted code: the grader runs it in its own process to compute expected values. It is never
shipped to students and never sent to the sandboxed worker.
"""
