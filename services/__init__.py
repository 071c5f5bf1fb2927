"""The backend's services: platform (shared plumbing), match, matchmaker, collection,
rating, battle; rules and wire (the vocabulary they share); and ``admin``
(``triad-admin``, the operators' tool, which alone reaches into several services)."""
