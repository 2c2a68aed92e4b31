"""Students who appear in more than one submission.

Gradescope lets a student add classmates to their submission as group members; a student who
also handed in their own work (or whom two groups both added) is then listed by two
submissions, and which grade counts is the instructor's decision, not the grader's. The same
happens with two folders or archives for one student id, or one Canvas login under two ids.

Two identities are the same student when they share an id (Canvas ID, SIS user id, or a login /
e-mail), or when their names match ("Doe, Jane" = "Jane Doe") and no kind of id that both
carry tells them apart (see `same_students` for a name that could be either of two).
Matching is on every member of every entry, whatever the layout.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from grader.batch.gradebook import name_keys
from grader.batch.intake import Identity


@dataclass(frozen=True)
class Duplicate:
    """One student listed by several submissions."""

    who: Identity  # the most complete of the identities found
    entries: tuple[tuple[str, str], ...]  # (key, display) of every submission, by key

    def label(self) -> str:
        """`Jane Doe (SID 123)`: the name and the first id known."""
        w = self.who
        ids = [
            f"{kind} {v}"
            for kind, v in (
                ("SID", w.sis_user_id),
                ("Canvas ID", w.canvas_id),
                ("login", w.sis_login_id),
                ("e-mail", w.email),
            )
            if v
        ]
        name = w.name or "(no name)"
        return f"{name} ({ids[0]})" if ids else name

    def describe(self) -> str:
        """The submissions, for a note: `ann_1 (Ann & Bob), ann_2 (Ann)`."""
        return ", ".join(
            f"{key} ({display})" if display and display != key else key
            for key, display in self.entries
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "student": self.who.to_dict(),
            "entries": [{"key": k, "display": d} for k, d in self.entries],
        }


def _ids(who: Identity) -> set[tuple[str, str]]:
    ids = {("canvas", who.canvas_id), ("sis", who.sis_user_id.lower())}
    ids |= {("login", v.lower()) for v in (who.sis_login_id, who.email)}
    return {(kind, v) for kind, v in ids if v}


def same_students(people: list[Identity]) -> list[list[int]]:
    """Positions in `people` grouped by student (each group sorted; groups by first position).

    Ids join people first; then a name joins a person to the students of that name whose ids
    do not contradict theirs, unless those students contradict each other (an id-less "Jane
    Doe" beside two Jane Does with different SIDs could be either: she is left alone).
    Linear in the class size apart from people who share a name."""
    parent = list(range(len(people)))
    ids: dict[int, dict[str, set[str]]] = {}  # a group's root -> its ids by kind
    for i, p in enumerate(people):
        ids[i] = defaultdict(set)
        for kind, value in _ids(p):
            ids[i][kind].add(value)

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = sorted((find(i), find(j)))
        if a != b:
            parent[b] = a
            for kind, values in ids.pop(b).items():
                ids[a][kind] |= values

    def contradict(a: int, b: int) -> bool:
        return any(kind in ids[b] and not values & ids[b][kind] for kind, values in ids[a].items())

    first: dict[tuple[str, str], int] = {}
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(people):
        for token in sorted(_ids(p)):
            union(first.setdefault(token, i), i)
        for k in name_keys(p.name):
            by_name[k].append(i)
    # people a name could join, by the group their ids put them in
    compatible: dict[int, set[int]] = defaultdict(set)
    for same in by_name.values():
        roots = sorted({find(i) for i in same})
        for n, a in enumerate(roots):
            for b in roots[n + 1 :]:
                if not contradict(a, b):
                    compatible[a].add(b)
                    compatible[b].add(a)
    ambiguous = {
        r
        for r, near in compatible.items()
        if any(contradict(a, b) for a in near for b in near if a < b)
    }
    for r, near in sorted(compatible.items()):
        if r not in ambiguous:
            for other in sorted(near - ambiguous):
                union(r, other)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(people)):
        groups[find(i)].append(i)
    return sorted(groups.values())


@dataclass
class Duplicates:
    """What `find_duplicates` found, by position in its `members`."""

    by_position: dict[int, Duplicate] = field(default_factory=dict)
    repeats: set[int] = field(default_factory=set)  # a student already listed by that entry

    @property
    def students(self) -> list[Duplicate]:
        """Each student once, by name."""
        unique = {id(d): d for d in self.by_position.values()}
        return sorted(unique.values(), key=lambda d: (d.who.name.lower(), d.entries))


def find_duplicates(members: list[tuple[str, str, Identity]]) -> Duplicates:
    """`members`: (entry key, entry display, identity) of every member of every entry.

    Every position whose student another entry lists too gets that student's `Duplicate`
    (one object shared by all their positions); a student an entry lists twice is a repeat
    from the second time on."""
    out = Duplicates()
    for group in same_students([who for _, _, who in members]):
        entries: dict[str, str] = {}
        for i in group:
            key, display, _ = members[i]
            if key in entries:
                out.repeats.add(i)
            entries.setdefault(key, display)
        if len(entries) < 2:
            continue
        who = max((members[i][2] for i in group), key=lambda w: (len(w.to_dict()), w.name))
        dup = Duplicate(who, tuple(sorted(entries.items())))
        for i in group:
            out.by_position[i] = dup
    return out
