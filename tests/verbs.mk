# tests/verbs.mk: (filled in by the verbs work)
