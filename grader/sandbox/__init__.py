"""The trust boundary: everything that touches student code or talks to it."""
