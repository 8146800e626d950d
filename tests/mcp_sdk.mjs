// tests/mcp_sdk.mjs: hermes mcp under the official MCP TypeScript SDK (Client +
// StdioClientTransport), as an agent host would use it: each protocol revision negotiated, every
// tool listed with a valid name and schemas that compile, every tool called (the SDK checks each
// structuredContent against the tool's outputSchema), isError for bad arguments, cancellation of a
// running proc.run, progress, and the workspace from roots/list. Run by tests/mcp_sdk.sh.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';

const sdkDir = process.env.MCP_SDK_DIR;
const hermes = process.env.HERMES;
const req = createRequire(path.join(sdkDir, 'package.json'));
const load = async (m) => import(pathToFileURL(req.resolve(m)).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
const types = await load('@modelcontextprotocol/sdk/types.js');
const Ajv2020 = req('ajv/dist/2020').default;

let failed = 0, ran = 0;
async function test(name, fn) {
	const t0 = Date.now();
	ran++;
	try {
		await fn();
		console.log(`PASS: ${name} (${((Date.now() - t0) / 1000).toFixed(2)} s)`);
	} catch (e) {
		failed++;
		console.log(`FAIL: ${name}\n${e && e.stack || e}`);
	}
}

function workspace() {
	return fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-sdk.'));
}

async function connect({ args = [], cwd, version, roots } = {}) {
	const transport = new StdioClientTransport({ command: hermes, args: ['mcp', ...args], cwd,
	                                              stderr: 'pipe' });
	if (version) { // ask for this revision instead of the SDK's newest
		const send = transport.send.bind(transport);
		transport.send = (m, o) => {
			if (m.method === 'initialize') m.params.protocolVersion = version;
			return send(m, o);
		};
	}
	const client = new Client({ name: 'hermes-mcp-sdk-test', version: '1' },
	                          { capabilities: roots ? { roots: { listChanged: true } } : {} });
	if (roots)
		client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: roots() }));
	await client.connect(transport);
	return { client, transport };
}

// Arguments for every tool: good ones for the verbs this test knows, else made from the schema
// (the verb may then fail: its failed result must still match the outputSchema).
function argumentsFor(tool, ws) {
	const known = {
		fs_exists: { path: 'a.txt' },
		fs_readFile: { path: 'a.txt' },
		fs_readRange: { path: 'a.txt', startLine: 1, endLine: 2 },
		fs_writeFile: { path: 'w.txt', content: 'written\n' },
		fs_writeRange: { path: 'a.txt', startLine: 1, endLine: 1, content: 'ONE\n' },
		fs_deleteFile: { path: 'gone.txt' },
		fs_moveFile: { sourcePath: 'm.txt', destinationPath: 'moved/m.txt' },
		fs_copyFile: { sourcePath: 'a.txt', destinationPath: 'copy.txt' },
		fs_createDirectory: { path: 'newdir/sub' },
		fs_deleteDirectory: { path: 'olddir' },
		fs_lineCount: { path: 'a.txt' },
		fs_listDir: { path: '.' },
		fs_search: { pattern: 'two' },
		fs_glob: { pattern: '**/*.txt' },
		proc_run: { executable: 'echo', arguments: ['hi'] },
		sys_machineInfo: {},
	};
	if (known[tool.name]) return known[tool.name];
	const out = {};
	const props = tool.inputSchema.properties || {};
	for (const name of tool.inputSchema.required || []) {
		const t = props[name] && props[name].type;
		out[name] = t === 'integer' ? 1 : t === 'boolean' ? false : t === 'array' ? [] : 'a.txt';
	}
	return out;
}

function prepare(ws) {
	fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n');
	fs.writeFileSync(path.join(ws, 'gone.txt'), 'x\n');
	fs.writeFileSync(path.join(ws, 'm.txt'), 'x\n');
	fs.mkdirSync(path.join(ws, 'olddir', 'deep'), { recursive: true });
	fs.writeFileSync(path.join(ws, 'olddir', 'deep', 'f'), 'x\n');
}

const alive = (pid) => {
	try {
		return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
	} catch { return false; }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await test('every revision is negotiated', async () => {
	for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
		const ws = workspace();
		const { client } = await connect({ args: ['--root', ws], version: v });
		assert.equal(client.getServerVersion().name, 'hermes');
		assert.ok(client.getInstructions().includes('workspace'));
		assert.ok(client.getServerCapabilities().tools);
		const r = await client.callTool({ name: 'fs_exists', arguments: { path: '.' } });
		assert.equal(r.structuredContent.exists, true);
		await client.close();
	}
});

await test('every tool: a valid name, schemas that compile, a result that matches outputSchema', async () => {
	const ws = workspace();
	prepare(ws);
	const { client } = await connect({ args: ['--root', ws] });
	const { tools } = await client.listTools();
	assert.ok(tools.length >= 14, `${tools.length} tools`);
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	for (const t of tools) {
		assert.match(t.name, /^[a-zA-Z0-9_-]{1,64}$/);
		assert.ok(t.description && t.description.length > 20, t.name);
		ajv.compile(t.inputSchema);
		if (t.outputSchema) ajv.compile(t.outputSchema);
		const args = argumentsFor(t, ws);
		// the SDK validates structuredContent against outputSchema and throws if it does not match
		const r = await client.callTool({ name: t.name, arguments: args });
		assert.equal(typeof r.isError, 'boolean', t.name);
		assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, t.name);
		if (t.outputSchema) {
			const validate = ajv.compile(t.outputSchema);
			assert.ok(validate(r.structuredContent), `${t.name}: ${JSON.stringify(validate.errors)}`);
		}
		if (['fs_exists', 'fs_readRange', 'fs_writeFile', 'fs_copyFile', 'proc_run', 'fs_listDir',
		     'sys_machineInfo', 'fs_search', 'fs_glob', 'fs_deleteDirectory'].includes(t.name))
			assert.equal(r.isError, false, `${t.name}: ${r.content[0].text}`);
	}
	assert.equal(fs.readFileSync(path.join(ws, 'w.txt'), 'utf8'), 'written\n');
	assert.ok(!fs.existsSync(path.join(ws, 'olddir')));
	// arguments the decoder refuses: isError with its message, not an exception
	const bad = await client.callTool({ name: 'fs_readRange', arguments: { path: 'a.txt', startLine: 'two' } });
	assert.equal(bad.isError, true);
	assert.match(bad.content[0].text, /startLine/);
	await assert.rejects(client.callTool({ name: 'fs_teleport', arguments: {} }), /fs_teleport/);
	await client.close();
});

await test('an aborted call stops its program within 1 s', async () => {
	const ws = workspace();
	const { client } = await connect({ args: ['--root', ws] });
	const abort = new AbortController();
	const call = client.callTool({ name: 'proc_run', arguments: {
		executable: 'sh', arguments: ['-c', 'echo $$ > pid; exec sleep 30'] } }, undefined,
		{ signal: abort.signal, timeout: 60000 });
	const pidFile = path.join(ws, 'pid');
	for (let i = 0; i < 500 && !(fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()); i++)
		await sleep(10);
	const pid = Number(fs.readFileSync(pidFile, 'utf8'));
	assert.ok(alive(pid));
	const t0 = Date.now();
	abort.abort('test');
	await assert.rejects(call);
	while (alive(pid) && Date.now() - t0 < 3000)
		await sleep(10);
	assert.ok(!alive(pid), 'sleep 30 still running');
	assert.ok(Date.now() - t0 < 1000, `gone after ${Date.now() - t0} ms`);
	// the session goes on
	const r = await client.callTool({ name: 'fs_exists', arguments: { path: 'pid' } });
	assert.equal(r.structuredContent.exists, true);
	await client.close();
});

await test('progress rises for a proc.run with a progress token', async () => {
	const ws = workspace();
	const { client } = await connect({ args: ['--root', ws] });
	const seen = [];
	const r = await client.callTool({ name: 'proc_run', arguments: {
		executable: 'sh', arguments: ['-c', 'sleep 0.7'] } }, undefined,
		{ onprogress: (p) => seen.push(p.progress) });
	assert.equal(r.isError, false);
	assert.ok(seen.length >= 3, JSON.stringify(seen));
	for (let i = 1; i < seen.length; i++)
		assert.ok(seen[i] > seen[i - 1], JSON.stringify(seen));
	await client.close();
});

await test('without --root the workspace is the client\'s first root', async () => {
	const ws = workspace(), elsewhere = workspace();
	fs.writeFileSync(path.join(ws, 'only-here.txt'), 'x\n');
	const { client } = await connect({ cwd: elsewhere,
		roots: () => [{ uri: pathToFileURL(ws).href, name: 'project' }] });
	let r;
	for (let i = 0; i < 100; i++) { // roots/list is asked after initialized; wait for its answer
		r = await client.callTool({ name: 'fs_exists', arguments: { path: 'only-here.txt' } })
			.catch((e) => e);
		if (!(r instanceof Error)) break;
		await sleep(10);
	}
	assert.ok(!(r instanceof Error), String(r));
	assert.equal(r.structuredContent.exists, true);
	await client.close();
});

console.log(`${ran} test(s), ${failed} failed`);
process.exit(failed ? 1 : 0);
