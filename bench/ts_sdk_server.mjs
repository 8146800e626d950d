// bench/ts_sdk_server.mjs: the reference of bench/http_fleet.py's SDK row: the official TypeScript
// SDK v2 server (@modelcontextprotocol/server, installed outside the tree under MCP_SERVER_DIR),
// stateless Streamable HTTP (createMcpHandler: a fresh McpServer per request, the SDK's way),
// answering an fs_exists tool equivalent to Hermes's (the path's existence and kind in ROOT).
// Node's http module carries it, with the few lines of Request/Response glue
// @modelcontextprotocol/node would add.
// Usage: MCP_SERVER_DIR=DIR node bench/ts_sdk_server.mjs ROOT   (prints {"port": N} once listening)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.MCP_SERVER_DIR;
const mod = (p) => import(pathToFileURL(path.join(dir, 'node_modules', p)).href);
const { McpServer, createMcpHandler } = await mod('@modelcontextprotocol/server/dist/index.mjs');
const { z } = await mod('zod/index.js');
const root = fs.realpathSync(process.argv[2]);

function factory() {
	const server = new McpServer({ name: 'bench-ts', version: '1.0.0' });
	server.registerTool('fs_exists', {
		description: 'Whether a path exists in the workspace, and what it is.',
		inputSchema: z.object({ path: z.string() }),
		outputSchema: z.object({ exists: z.boolean(), kind: z.string().optional() }),
	}, async ({ path: p }) => {
		const full = path.resolve(root, p);
		if (full !== root && !full.startsWith(root + path.sep))
			return { isError: true, content: [{ type: 'text', text: 'outside the workspace' }] };
		let out;
		try {
			const st = await fs.promises.lstat(full);
			out = { exists: true, kind: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other' };
		} catch {
			out = { exists: false };
		}
		return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
	});
	return server;
}

const handler = createMcpHandler(factory);
const fetchOf = typeof handler === 'function' ? handler : handler.fetch.bind(handler);

const srv = http.createServer(async (req, res) => {
	const chunks = [];
	for await (const c of req)
		chunks.push(c);
	const headers = new Headers();
	for (const [k, v] of Object.entries(req.headers))
		headers.set(k, Array.isArray(v) ? v.join(', ') : v);
	const request = new Request(`http://${req.headers.host}${req.url}`, {
		method: req.method, headers,
		body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
	});
	const response = await fetchOf(request);
	const body = Buffer.from(await response.arrayBuffer());
	const out = {};
	response.headers.forEach((v, k) => { out[k] = v; });
	out['content-length'] = String(body.length);
	res.writeHead(response.status, out);
	res.end(body);
});
srv.keepAliveTimeout = 60000;
srv.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: srv.address().port })));
