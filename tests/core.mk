# tests/core.mk: (filled in below)
