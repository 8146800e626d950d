// tests/mcp_fleet.mjs: the TypeScript SDK v2 client through a load balancer (MCP_URL) to three
// hermes instances: it reads each tool's "x-mcp-header" and mirrors the program's id into
// Mcp-Param-Handle, which the balancer routes on. MCP_SEQUENCES times: proc_start (any instance)
// -> proc_write -> proc_output (which must hold what was written: the same program) ->
// proc_stop. Prints {"done": N, "instances": {...}}. Run by tests/mcp_fleet.py.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import assert from 'node:assert/strict';

const req = createRequire(path.join(process.env.MCP_CLIENT_DIR, 'package.json'));
const sdk = await import(pathToFileURL(req.resolve('@modelcontextprotocol/client')).href);
const client = new sdk.Client({ name: 'hermes-fleet-test', version: '1' },
                              { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new sdk.StreamableHTTPClientTransport(new URL(process.env.MCP_URL)));
const { tools } = await client.listTools();
for (const name of ['proc_output', 'proc_write', 'proc_stop'])
	assert.ok(tools.some((t) => t.name === name), `${name} is listed (its x-mcp-header is valid)`);
const n = Number(process.env.MCP_SEQUENCES || 100);
const instances = {};
const call = async (name, args) => {
	const r = await client.callTool({ name, arguments: args });
	assert.equal(r.isError, false, `${name}: ${r.content[0].text}`);
	return r.structuredContent;
};
for (let i = 0; i < n; i++) {
	const { id } = await call('proc_start', { executable: 'cat', waitSeconds: 0 });
	const inst = id.split('.')[0];
	instances[inst] = (instances[inst] || 0) + 1;
	await call('proc_write', { id, text: `line ${i}\n` });
	let out = '';
	for (let k = 0; k < 50 && !out.includes(`line ${i}\n`); k++)
		out += (await call('proc_output', { id, waitSeconds: 2 })).stdout;
	assert.ok(out.includes(`line ${i}\n`), `program ${id} echoed ${JSON.stringify(out)}`);
	await call('proc_stop', { id });
}
await client.close();
console.log(JSON.stringify({ done: n, instances }));
