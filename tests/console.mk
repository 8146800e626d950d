# tests/console.mk: (filled in by the console work)
