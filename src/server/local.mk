# src/server: hermes serve, JSON-RPC 2.0 over stdio (framing, dispatch, worker pool, lifecycle).
