// tests/mcp_sdk.mjs: hermes mcp under the official MCP TypeScript SDK (Client +
// StdioClientTransport), as an agent host would use it: each protocol revision negotiated, every
// tool listed with a valid name and schemas that compile, every tool called (the SDK checks each
// structuredContent against the tool's outputSchema), isError for bad arguments, cancellation of a
// running proc.run, progress, and the workspace from roots/list (an empty list means the current
// directory; a call sent right after initialized waits for the answer). Every message hermes sends
// is checked against the 2025-11-25 JSON Schema. Over stdio and, where hermes was built with it,
// Streamable HTTP (a 2025 session). Run by tests/mcp_sdk.sh.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { test, finish, sleep, alive, workspace, prepare, argumentsFor, mustSucceed, startHttp,
         schemaValidator, watch, httpBuilt, abortStopsProgram, textJson, checkImages, checkResources } from './mcp_lib.mjs';

const sdkDir = process.env.MCP_SDK_DIR;
const hermes = process.env.HERMES;
const req = createRequire(path.join(sdkDir, 'package.json'));
const load = async (m) => import(pathToFileURL(req.resolve(m)).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js');
const types = await load('@modelcontextprotocol/sdk/types.js');
const Ajv2020 = req('ajv/dist/2020').default;
const validate = schemaValidator(req, '2025-11-25');
const http = httpBuilt(hermes);

// A connected client over stdio, or over HTTP (kind 'http': a hermes mcp --listen of its own).
async function connect({ args = [], cwd, version, roots, kind = 'stdio' } = {}) {
	let transport, server;
	if (kind === 'stdio') {
		transport = new StdioClientTransport({ command: hermes, args: ['mcp', ...args], cwd,
		                                       stderr: 'pipe' });
	} else {
		server = await startHttp(hermes, args, { cwd });
		transport = new StreamableHTTPClientTransport(new URL(server.url));
	}
	if (version) { // ask for this revision instead of the SDK's newest
		const send = transport.send.bind(transport);
		transport.send = (m, o) => {
			if (m.method === 'initialize') m.params.protocolVersion = version;
			return send(m, o);
		};
	}
	const seen = watch(transport, validate);
	const client = new Client({ name: 'hermes-mcp-sdk-test', version: '1' },
	                          { capabilities: roots ? { roots: { listChanged: true } } : {} });
	if (roots)
		client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: await roots() }));
	await client.connect(transport);
	const close = async () => { await client.close(); if (server) await server.stop(); };
	return { client, transport, seen, close };
}

const kinds = http ? ['stdio', 'http'] : ['stdio'];
if (!http) console.log('SKIP (part): this hermes has no Streamable HTTP (configure --without-http): stdio only');

for (const kind of kinds) {
	await test(`${kind}: every revision is negotiated`, async () => {
		for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
			const ws = workspace();
			const { client, seen, close } = await connect({ args: ['--root', ws], version: v, kind });
			assert.equal(client.getServerVersion().name, 'hermes');
			assert.ok(client.getInstructions().includes('workspace'));
			assert.ok(client.getServerCapabilities().tools);
			const r = await client.callTool({ name: 'fs_exists', arguments: { path: '.' } });
			assert.equal(r.structuredContent.exists, true);
			assert.equal(r.resultType, undefined, 'resultType is the 2026 era\'s');
			assert.deepEqual(seen.problems, []);
			await close();
		}
	});

	await test(`${kind}: every tool: a valid name, schemas that compile, a result that matches outputSchema`, async () => {
		const ws = workspace();
		prepare(ws);
		const { client, seen, close } = await connect({ args: ['--root', ws], kind });
		const { tools } = await client.listTools();
		assert.ok(tools.length >= 14, `${tools.length} tools`);
		const ajv = new Ajv2020({ strict: false, allErrors: true });
		for (const t of tools) {
			assert.match(t.name, /^[a-zA-Z0-9_-]{1,64}$/);
			assert.ok(t.description && t.description.length > 20, t.name);
			ajv.compile(t.inputSchema);
			if (t.outputSchema) ajv.compile(t.outputSchema);
			// the SDK validates structuredContent against outputSchema and throws if it does not match
			const r = await client.callTool({ name: t.name, arguments: argumentsFor(t) });
			assert.equal(typeof r.isError, 'boolean', t.name);
			assert.deepEqual(textJson(r, t.name), r.structuredContent, t.name);
			if (t.outputSchema) {
				const v = ajv.compile(t.outputSchema);
				assert.ok(v(r.structuredContent), `${t.name}: ${JSON.stringify(v.errors)}`);
			}
			if (mustSucceed.includes(t.name))
				assert.equal(r.isError, false, `${t.name}: ${r.content[0].text}`);
		}
		assert.equal(fs.readFileSync(path.join(ws, 'w.txt'), 'utf8'), 'written\n');
		assert.ok(!fs.existsSync(path.join(ws, 'olddir')));
		// arguments the decoder refuses: isError with its message, not an exception
		const bad = await client.callTool({ name: 'fs_readRange', arguments: { path: 'a.txt', startLine: 'two' } });
		assert.equal(bad.isError, true);
		assert.match(bad.content[0].text, /startLine/);
		await assert.rejects(client.callTool({ name: 'fs_teleport', arguments: {} }), /fs_teleport/);
		assert.deepEqual(seen.problems, []);
		await close();
	});

	await test(`${kind}: images as image blocks, other bytes as resource blobs, valid`, async () => {
		const ws = workspace();
		prepare(ws);
		const { client, seen, close } = await connect({ args: ['--root', ws], kind });
		await checkImages(ws, (p) => client.callTool(p));
		assert.deepEqual(seen.problems, []);
		await close();
	});

	await test(`${kind}: the workspace's files as resources, paged, read, valid`, async () => {
		const ws = workspace();
		const { client, seen, close } = await connect({ args: ['--root', ws], kind });
		assert.ok(client.getServerCapabilities().resources);
		await checkResources(ws, { list: (cursor) => client.listResources(cursor ? { cursor } : {}),
		                          read: (uri) => client.readResource({ uri }),
		                          templates: () => client.listResourceTemplates(),
		                          pagesSent: () => seen.messages.filter((m) => m.result && m.result.resources).length });
		assert.deepEqual(seen.problems, []);
		await close();
	});

	await test(`${kind}: an aborted call stops its program within 1 s`, async () => {
		const ws = workspace();
		const { client, close } = await connect({ args: ['--root', ws], kind });
		await abortStopsProgram(ws, (args, signal) => client.callTool(
			{ name: 'proc_run', arguments: args }, undefined, { signal, timeout: 60000 }));
		// the session goes on
		const r = await client.callTool({ name: 'fs_exists', arguments: { path: 'pid' } });
		assert.equal(r.structuredContent.exists, true);
		await close();
	});

	await test(`${kind}: progress rises for a proc.run with a progress token`, async () => {
		const ws = workspace();
		const { client, seen, close } = await connect({ args: ['--root', ws], kind });
		const progress = [];
		const r = await client.callTool({ name: 'proc_run', arguments: {
			executable: 'sh', arguments: ['-c', 'sleep 0.7'] } }, undefined,
			{ onprogress: (p) => progress.push(p.progress) });
		assert.equal(r.isError, false);
		assert.ok(progress.length >= 3, JSON.stringify(progress));
		for (let i = 1; i < progress.length; i++)
			assert.ok(progress[i] > progress[i - 1], JSON.stringify(progress));
		assert.deepEqual(seen.problems, []);
		await close();
	});
}

// Over HTTP the notifications come on the session's GET stream, which the SDK opens after
// initialized (tests/mcp_subscribe_http.py reads it byte by byte).
for (const kind of kinds) {
	await test(`${kind}: a subscribed resource is announced when its file changes, until unsubscribed`, async () => {
		const ws = workspace();
		fs.writeFileSync(path.join(ws, 'watched.txt'), 'one\n');
		const { client, seen, close } = await connect({ args: ['--root', ws], kind });
		assert.equal(client.getServerCapabilities().resources.subscribe, true);
		const updated = [];
		client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
		const uri = `file://${fs.realpathSync(ws)}/watched.txt`;
		await client.subscribeResource({ uri });
		fs.writeFileSync(path.join(ws, 'other.txt'), 'x\n');
		fs.writeFileSync(path.join(ws, 'watched.txt'), 'two\n');
		for (let i = 0; i < 300 && !updated.length; i++) await sleep(10);
		assert.deepEqual([...new Set(updated)], [uri]);
		assert.equal((await client.readResource({ uri })).contents[0].text, 'two\n');
		// again, and again: each change announced while the stream stays open
		for (const text of ['three\n', 'four\n']) {
			updated.length = 0;
			fs.writeFileSync(path.join(ws, 'watched.txt'), text);
			for (let i = 0; i < 300 && !updated.length; i++) await sleep(10);
			assert.deepEqual([...new Set(updated)], [uri], text);
		}
		await client.unsubscribeResource({ uri });
		await sleep(100);
		updated.length = 0;
		fs.writeFileSync(path.join(ws, 'watched.txt'), 'five\n');
		await sleep(300);
		assert.deepEqual(updated, []);
		assert.ok(seen.messages.some((m) => m.method === 'notifications/resources/updated'));
		assert.deepEqual(seen.problems, []);
		await close();
	});
}

// Roots are a stdio affair here: hermes mcp --listen takes its workspace from --root or its
// current directory.
await test('without --root the workspace is the client\'s first root, even for the first call', async () => {
	const ws = workspace(), elsewhere = workspace();
	fs.writeFileSync(path.join(ws, 'only-here.txt'), 'x\n');
	// the host answers roots/list late: a call sent right after initialized waits for it
	const { client, close } = await connect({ cwd: elsewhere,
		roots: async () => { await sleep(300); return [{ uri: pathToFileURL(ws).href, name: 'project' }]; } });
	const r = await client.callTool({ name: 'fs_exists', arguments: { path: 'only-here.txt' } });
	assert.equal(r.structuredContent.exists, true);
	await close();
});

await test('an empty roots list means the current directory', async () => {
	const ws = workspace();
	fs.writeFileSync(path.join(ws, 'here.txt'), 'x\n');
	const { client, close } = await connect({ cwd: ws, roots: async () => [] });
	const r = await client.callTool({ name: 'fs_exists', arguments: { path: 'here.txt' } });
	assert.equal(r.isError, false, r.content[0].text);
	assert.equal(r.structuredContent.exists, true);
	await close();
});

finish();
