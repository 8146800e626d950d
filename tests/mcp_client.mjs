// tests/mcp_client.mjs: hermes mcp under the official TypeScript SDK v2 client, as a 2026-07-28
// host uses it: the revision pinned and on `auto` (the server/discover probe), over stdio and over
// Streamable HTTP; every tool listed and called, each structuredContent checked against its
// outputSchema, every message hermes sends checked against the 2026-07-28 JSON Schema; isError
// for bad arguments, an unknown tool refused, progress, cancellation (a notification on stdio, the
// closed response stream on HTTP). Run by tests/mcp_client.sh.
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { test, finish, sleep, alive, workspace, prepare, argumentsFor, mustSucceed, startHttp,
         schemaValidator, watch, httpBuilt, abortStopsProgram, textJson, checkImages, checkResources } from './mcp_lib.mjs';

const dir = process.env.MCP_CLIENT_DIR;
const hermes = process.env.HERMES;
const http = httpBuilt(hermes);
const req = createRequire(path.join(dir, 'package.json'));
const load = async (m) => import(pathToFileURL(req.resolve(m)).href);
const sdk = await load('@modelcontextprotocol/client');
const { StdioClientTransport } = await load('@modelcontextprotocol/client/stdio');
const validate = schemaValidator(req, '2026-07-28');
const Ajv2020 = req('ajv/dist/2020').default;

// A connected client: transport 'stdio' or 'http', mode { pin: '2026-07-28' } or 'auto'.
async function connect(kind, mode, ws, args = []) {
	let transport, server;
	if (kind === 'stdio') {
		transport = new StdioClientTransport({ command: hermes, args: ['mcp', '--root', ws, ...args],
		                                       stderr: 'pipe' });
	} else {
		server = await startHttp(hermes, ['--root', ws, ...args]);
		transport = new sdk.StreamableHTTPClientTransport(new URL(server.url));
	}
	const seen = watch(transport, validate);
	const client = new sdk.Client({ name: 'hermes-mcp-client-test', version: '1' },
	                              { versionNegotiation: { mode } });
	await client.connect(transport);
	return { client, seen, server,
	         close: async () => { await client.close(); if (server) await server.stop(); } };
}

const kinds = http ? ['stdio', 'http'] : ['stdio'];
if (!http) console.log('SKIP (part): this hermes has no Streamable HTTP (configure --without-http): stdio only');

for (const kind of kinds) {
	for (const mode of [{ pin: '2026-07-28' }, 'auto']) {
		const label = `${kind}, ${typeof mode === 'string' ? mode : 'pinned to ' + mode.pin}`;

		await test(`${label}: the 2026-07-28 era, every tool called, every message valid`, async () => {
			const ws = workspace();
			prepare(ws);
			const { client, seen, close } = await connect(kind, mode, ws);
			assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
			const d = client.getDiscoverResult();
			assert.ok(d, 'no DiscoverResult');
			assert.deepEqual(d.supportedVersions.slice(0, 2), ['2026-07-28', '2025-11-25']);
			assert.ok(d.capabilities.tools, JSON.stringify(d.capabilities));
			assert.equal(client.getServerVersion().name, 'hermes');
			assert.ok(client.getInstructions().includes('workspace'));
			const { tools } = await client.listTools();
			assert.ok(tools.length >= 14, `${tools.length} tools`);
			const again = await client.listTools({}, { cacheMode: 'bypass' });
			assert.deepEqual(again.tools.map((t) => t.name), tools.map((t) => t.name), 'a fixed order');
			const ajv = new Ajv2020({ strict: false, allErrors: true });
			for (const t of tools) {
				assert.match(t.name, /^[a-zA-Z0-9_-]{1,64}$/);
				const r = await client.callTool({ name: t.name, arguments: argumentsFor(t) });
				assert.equal(typeof r.isError, 'boolean', t.name);
				assert.deepEqual(textJson(r, t.name), r.structuredContent, t.name);
				const v = ajv.compile(t.outputSchema);
				assert.ok(v(r.structuredContent), `${t.name}: ${JSON.stringify(v.errors)}`);
				if (mustSucceed.includes(t.name))
					assert.equal(r.isError, false, `${t.name}: ${r.content[0].text}`);
			}
			assert.equal(fs.readFileSync(path.join(ws, 'w.txt'), 'utf8'), 'written\n');
			const bad = await client.callTool({ name: 'fs_readRange', arguments: { path: 'a.txt', startLine: 'two' } });
			assert.equal(bad.isError, true);
			assert.match(bad.content[0].text, /startLine/);
			await assert.rejects(client.callTool({ name: 'fs_teleport', arguments: {} }), /fs_teleport/);
			const modern = seen.messages.filter((m) => m.result);
			assert.ok(modern.length > tools.length, `${modern.length} results seen`);
			for (const m of modern) {
				assert.equal(m.result.resultType, 'complete', JSON.stringify(m).slice(0, 200));
				assert.equal(m.result._meta['io.modelcontextprotocol/serverInfo'].name, 'hermes');
			}
			assert.deepEqual(seen.problems, []);
			await close();
		});

		await test(`${label}: progress rises, then the result`, async () => {
			const ws = workspace();
			const { client, seen, close } = await connect(kind, mode, ws);
			const progress = [];
			const r = await client.callTool({ name: 'proc_run', arguments: {
				executable: 'sh', arguments: ['-c', 'sleep 0.7'] } }, { onprogress: (p) => progress.push(p.progress) });
			assert.equal(r.isError, false);
			assert.ok(progress.length >= 3, JSON.stringify(progress));
			for (let i = 1; i < progress.length; i++)
				assert.ok(progress[i] > progress[i - 1], JSON.stringify(progress));
			assert.deepEqual(seen.problems, []);
			await close();
		});

		await test(`${label}: images as image blocks, other bytes as resource blobs, valid`, async () => {
			const ws = workspace();
			prepare(ws);
			const { client, seen, close } = await connect(kind, mode, ws);
			await checkImages(ws, (p) => client.callTool(p));
			assert.deepEqual(seen.problems, []);
			await close();
		});

		await test(`${label}: the workspace's files as resources, paged, read, valid`, async () => {
			const ws = workspace();
			const { client, seen, close } = await connect(kind, mode, ws);
			assert.ok(client.getServerCapabilities().resources);
			await checkResources(ws, { list: (cursor) => client.listResources(cursor ? { cursor } : {}),
			                          read: (uri) => client.readResource({ uri }),
			                          templates: () => client.listResourceTemplates(),
			                          pagesSent: () => seen.messages.filter((m) => m.result && m.result.resources).length });
			assert.deepEqual(seen.problems, []);
			await close();
		});

		await test(`${label}: an aborted call stops its program within 1 s`, async () => {
			const ws = workspace();
			const { client, close } = await connect(kind, mode, ws);
			await abortStopsProgram(ws, (args, signal) => client.callTool(
				{ name: 'proc_run', arguments: args }, { signal, timeout: 60000 }));
			const r = await client.callTool({ name: 'fs_exists', arguments: { path: 'pid' } });
			assert.equal(r.structuredContent.exists, true);
			await close();
		});
	}
}

// subscriptions/listen through the client's listen(): over HTTP its response stream stays open
// and carries the notifications (tests/mcp_subscribe_http.py reads it byte by byte).
for (const kind of kinds) {
	await test(`${kind}: listen() is acknowledged, announces changes, closes (over HTTP the server's stop ends another gracefully); all valid`, async () => {
		const ws = workspace();
		fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
		const uri = `file://${fs.realpathSync(ws)}/a.txt`;
		const { client, seen, server, close } = await connect(kind, { pin: '2026-07-28' }, ws);
		assert.equal(client.getDiscoverResult().capabilities.resources.subscribe, true);
		const updated = [];
		client.setNotificationHandler('notifications/resources/updated', (n) => updated.push(n.params.uri));
		const sub = await client.listen({ resourceSubscriptions: [uri], toolsListChanged: true });
		assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [uri] });
		for (const text of ['two\n', 'three\n']) {
			updated.length = 0;
			fs.writeFileSync(path.join(ws, 'a.txt'), text);
			for (let i = 0; i < 300 && !updated.length; i++) await sleep(10);
			assert.deepEqual([...new Set(updated)], [uri], text);
		}
		// closed by the client: nothing more comes
		await sub.close();
		assert.equal(await sub.closed, 'local');
		await sleep(400);
		updated.length = 0;
		fs.writeFileSync(path.join(ws, 'a.txt'), 'four\n');
		await sleep(300);
		assert.deepEqual(updated, []);
		// another, ended by the server's stop (over HTTP; stdio's is below): its completion result
		if (kind === 'http') {
			const again = await client.listen({ resourceSubscriptions: [uri] });
			fs.writeFileSync(path.join(ws, 'a.txt'), 'five\n');
			for (let i = 0; i < 300 && !updated.length; i++) await sleep(10);
			assert.deepEqual([...new Set(updated)], [uri]);
			await server.stop();
			assert.equal(await again.closed, 'graceful');
			const end = seen.messages.find((m) => m.result && m.result.resultType === 'complete' &&
			                                      m.result._meta && m.result._meta['io.modelcontextprotocol/subscriptionId']);
			assert.ok(end, 'no completion result');
		}
		assert.ok(seen.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'));
		for (const m of seen.messages) {
			if (m.method === 'notifications/subscriptions/acknowledged') validate('SubscriptionsAcknowledgedNotification', m);
			if (m.result && m.result._meta && m.result._meta['io.modelcontextprotocol/subscriptionId'])
				validate('SubscriptionsListenResult', m.result);
		}
		assert.deepEqual(seen.problems, []);
		await client.close();
		if (kind === 'stdio') await close();
	});
}

// subscriptions/listen over stdio as raw lines: every message hermes sends validated against the
// 2026-07-28 schema.
await test('stdio: subscriptions/listen acknowledges, announces changes with its id, ends gracefully; all valid', async () => {
	const ws = workspace();
	fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
	const uri = `file://${fs.realpathSync(ws)}/a.txt`;
	const proc = spawn(hermes, ['mcp', '--root', ws], { stdio: ['pipe', 'pipe', 'inherit'] });
	const got = [];
	let buf = '';
	proc.stdout.setEncoding('utf8');
	proc.stdout.on('data', (d) => {
		buf += d;
		let i;
		while ((i = buf.indexOf('\n')) >= 0) { got.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); }
	});
	const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
	                'io.modelcontextprotocol/clientCapabilities': {},
	                'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };
	const send = (m) => proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
	const until = async (f) => { for (let i = 0; i < 300 && !got.some(f); i++) await sleep(10); return got.find(f); };
	send({ id: 'sub', method: 'subscriptions/listen', params: { _meta, notifications: {
		resourceSubscriptions: [uri], promptsListChanged: true } } });
	const ack = await until((m) => m.method === 'notifications/subscriptions/acknowledged');
	assert.deepEqual(ack.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' },
	                               notifications: { resourceSubscriptions: [uri] } });
	fs.writeFileSync(path.join(ws, 'a.txt'), 'two\n');
	const upd = await until((m) => m.method === 'notifications/resources/updated');
	assert.deepEqual(upd && upd.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' }, uri });
	proc.stdin.end();
	const end = await until((m) => m.id === 'sub');
	assert.deepEqual(end && end.result, { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' } });
	await new Promise((r) => proc.exitCode !== null ? r() : proc.on('exit', r));
	const defs = { 'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
	               'notifications/resources/updated': 'ResourceUpdatedNotification' };
	for (const m of got) {
		if (m.method) validate(defs[m.method], m);
		else validate('SubscriptionsListenResult', m.result);
	}
});

finish();
