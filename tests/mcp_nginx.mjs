// tests/mcp_nginx.mjs: the TypeScript SDK v2 client through nginx (MCP_URL) to two hermes
// upstreams sharing one workspace (MCP_WS): 2026-07-28 requests are stateless, so each may go to
// either; every call must succeed and see what the others wrote. Run by tests/mcp_nginx.sh.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { test, finish } from './mcp_lib.mjs';

const req = createRequire(path.join(process.env.MCP_CLIENT_DIR, 'package.json'));
const sdk = await import(pathToFileURL(req.resolve('@modelcontextprotocol/client')).href);
const ws = process.env.MCP_WS;

async function connect() {
	const client = new sdk.Client({ name: 'hermes-nginx-test', version: '1' },
	                              { versionNegotiation: { mode: { pin: '2026-07-28' } } });
	await client.connect(new sdk.StreamableHTTPClientTransport(new URL(process.env.MCP_URL)));
	return client;
}

await test('through nginx: 40 calls spread over both upstreams, all succeed', async () => {
	const client = await connect();
	const { tools } = await client.listTools();
	assert.ok(tools.some((t) => t.name === 'fs_writeFile'));
	for (let i = 0; i < 20; i++) {
		const w = await client.callTool({ name: 'fs_writeFile',
			arguments: { path: `f${i}.txt`, content: `${i}\n` } });
		assert.equal(w.isError, false, w.content[0].text);
		// whichever upstream answers, it sees the file the other may have written
		const r = await client.callTool({ name: 'fs_readRange',
			arguments: { path: `f${i}.txt`, startLine: 1, endLine: 1 } });
		assert.equal(r.isError, false, r.content[0].text);
		assert.equal(fs.readFileSync(path.join(ws, `f${i}.txt`), 'utf8'), `${i}\n`);
	}
	await client.close();
});

await test('through nginx: progress streams (SSE) unbuffered, then the result', async () => {
	// The program waits for a file that only the progress callback creates: if nginx (or Hermes)
	// held the stream back until the result, no progress would come before it, the program would
	// run into its time limit, and the call would fail. No clock is read.
	const client = await connect();
	const seen = [];
	const go = path.join(ws, 'go');
	const r = await client.callTool({ name: 'proc_run', arguments: {
		executable: 'sh', arguments: ['-c', 'while [ ! -e go ]; do sleep 0.05; done'],
		timeoutSeconds: 30 } },
		{ onprogress: (p) => { seen.push(p.progress); fs.writeFileSync(go, ''); },
		  timeout: 60000 });
	assert.equal(r.isError, false, r.content[0].text);
	assert.ok(seen.length >= 1, JSON.stringify(seen));
	fs.rmSync(go, { force: true });
	await client.close();
});

finish();
