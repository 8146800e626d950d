# tests/server_py.sh: runs one Python black-box test of hermes serve (the test driver's
# PY_LOG_COMPILER). Python 3 is optional when building from a tarball: without it, skip (77).
if [ -n "${PYTHON:-}" ] && [ "$PYTHON" != ":" ] && command -v "$PYTHON" >/dev/null 2>&1; then
	py=$PYTHON
elif command -v python3 >/dev/null 2>&1; then
	py=python3
else
	echo "SKIP: python3 is not installed"
	exit 77
fi
PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE
exec "$py" "$@"
