// tests/mcp_lib.mjs: what the tests driving hermes with real MCP clients share (mcp_sdk.mjs, SDK v1,
// 2025 era; mcp_client.mjs, SDK v2, 2026-07-28): a tiny test runner, a workspace with known files,
// good arguments for every tool, `hermes mcp --listen` started on a free loopback port, and the
// MCP JSON Schemas (tests/data/mcp-schema) to validate what hermes sends.
import { spawn, spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let failed = 0, ran = 0;
export async function test(name, fn) {
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
export function finish() {
	console.log(`${ran} test(s), ${failed} failed`);
	process.exit(failed ? 1 : 0);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const alive = (pid) => {
	try {
		return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
	} catch { return false; }
};

// Starts a proc_run that sleeps, through call(args, signal) (the client's callTool), aborts it once
// its program runs, and checks the call fails and the program is gone within 1 s.
export async function abortStopsProgram(ws, call) {
	const abort = new AbortController();
	const pending = call({ executable: 'sh', arguments: ['-c', 'echo $$ > pid; exec sleep 30'] },
	                     abort.signal);
	const pidFile = path.join(ws, 'pid');
	for (let i = 0; i < 500 && !(fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()); i++)
		await sleep(10);
	const pid = Number(fs.readFileSync(pidFile, 'utf8'));
	assert.ok(alive(pid));
	const t0 = Date.now();
	abort.abort('test');
	await assert.rejects(pending);
	while (alive(pid) && Date.now() - t0 < 3000)
		await sleep(10);
	assert.ok(!alive(pid), 'sleep 30 still running');
	assert.ok(Date.now() - t0 < 1000, `gone after ${Date.now() - t0} ms`);
}

// A fresh directory, removed when the test process exits.
const made = [];
process.on('exit', () => {
	for (const d of made)
		fs.rmSync(d, { recursive: true, force: true });
});
export function workspace() {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-client.'));
	made.push(d);
	return d;
}

// Files the known arguments below use.
export function prepare(ws) {
	fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n');
	fs.writeFileSync(path.join(ws, 'gone.txt'), 'x\n');
	fs.writeFileSync(path.join(ws, 'm.txt'), 'x\n');
	fs.mkdirSync(path.join(ws, 'olddir', 'deep'), { recursive: true });
	fs.writeFileSync(path.join(ws, 'olddir', 'deep', 'f'), 'x\n');
}

// Tools that must succeed with the arguments below (in a prepared workspace).
export const mustSucceed = ['fs_exists', 'fs_readRange', 'fs_writeFile', 'fs_copyFile', 'proc_run',
	'fs_listDir', 'sys_machineInfo', 'fs_search', 'fs_glob', 'fs_deleteDirectory'];

// Arguments for every tool: good ones for the verbs this test knows, else made from the schema
// (the verb may then fail: its failed result must still match the outputSchema).
export function argumentsFor(tool) {
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

// Whether this hermes serves Streamable HTTP (hermes mcp --listen; not with configure
// --without-http, where make check sets HERMES_HTTP=no).
export function httpBuilt(hermes) {
	if (process.env.HERMES_HTTP === 'no') return false;
	return spawnSync(hermes, ['mcp', '--help'], { encoding: 'utf8' }).stdout.includes('--listen=');
}

// Starts `hermes mcp --listen=127.0.0.1:0 ARGS...`; resolves to { url, proc, stop() } once it
// says on stderr where it listens.
export function startHttp(hermes, args = [], { cwd, env } = {}) {
	return new Promise((resolve, reject) => {
		const proc = spawn(hermes, ['mcp', '--listen=127.0.0.1:0', ...args],
		                   { cwd, env: env || process.env, stdio: ['ignore', 'ignore', 'pipe'] });
		let err = '';
		const timer = setTimeout(() => reject(new Error(`no "listening on" in 5 s: ${err}`)), 5000);
		proc.stderr.setEncoding('utf8');
		proc.stderr.on('data', (d) => {
			err += d;
			const m = /listening on (http:\/\/\S+)/.exec(err);
			if (m && timer) {
				clearTimeout(timer);
				// stop(): SIGTERM; rejects unless it ends with status 0 and no sanitizer report
				const ended = (code, done, fail) => code === 0 && !/Sanitizer|runtime error/.test(err)
					? done(code) : fail(new Error(`hermes mcp --listen ended with ${code}: ${err.slice(-2000)}`));
				resolve({ url: m[1], proc, stderr: () => err,
				          stop: () => new Promise((done, fail) => {
						  if (proc.exitCode !== null) return ended(proc.exitCode, done, fail);
						  proc.on('exit', (code) => ended(code, done, fail));
						  proc.kill('SIGTERM');
					  }) });
			}
		});
		proc.on('exit', (code) => reject(new Error(`hermes exited (${code}): ${err}`)));
	});
}

// validate(defName, value): throws naming the definition and ajv's errors unless value matches
// $defs[defName] of the revision's schema.
export function schemaValidator(req, revision) {
	const Ajv2020 = req('ajv/dist/2020').default;
	const addFormats = req('ajv-formats').default || req('ajv-formats');
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	const file = path.join(process.env.top_srcdir || '.', 'tests/data/mcp-schema', revision, 'schema.json');
	ajv.addSchema(JSON.parse(fs.readFileSync(file, 'utf8')), 'mcp');
	const cache = new Map();
	return (def, value) => {
		let v = cache.get(def);
		if (!v) cache.set(def, v = ajv.getSchema(`mcp#/$defs/${def}`));
		if (!v) throw new Error(`no $defs/${def} in the ${revision} schema`);
		if (!v(value))
			throw new Error(`not a ${def} (${revision}): ${ajv.errorsText(v.errors)}\n${JSON.stringify(value).slice(0, 600)}`);
	};
}

// Records what a transport carries: every message hermes sends is checked against the revision's
// schema (results by the method of the request they answer), failures collected in .problems.
export function watch(transport, validate) {
	const methods = new Map();
	const seen = { problems: [], messages: [] };
	const send = transport.send.bind(transport);
	transport.send = (m, o) => {
		if (m.id !== undefined && m.method) methods.set(m.id, m.method);
		return send(m, o);
	};
	let inner;
	Object.defineProperty(transport, 'onmessage', {
		configurable: true,
		get() { return inner && ((m, extra) => { check(m); return inner(m, extra); }); },
		set(f) { inner = f; },
	});
	const resultDef = { 'server/discover': 'DiscoverResult', 'tools/list': 'ListToolsResult',
	                    'tools/call': 'CallToolResult', initialize: 'InitializeResult',
	                    'resources/list': 'ListResourcesResult', 'resources/read': 'ReadResourceResult',
	                    'resources/templates/list': 'ListResourceTemplatesResult' };
	const noteDef = { 'notifications/progress': 'ProgressNotification',
	                  'notifications/message': 'LoggingMessageNotification',
	                  'notifications/resources/updated': 'ResourceUpdatedNotification' };
	function check(m) {
		seen.messages.push(m);
		try {
			if (m.error) validate('JSONRPCErrorResponse', m);
			else if (m.result !== undefined) {
				validate('JSONRPCResultResponse', m);
				const def = resultDef[methods.get(m.id)];
				if (def) validate(def, m.result);
			} else if (m.method && m.id === undefined) {
				validate('JSONRPCNotification', m);
				if (noteDef[m.method]) validate(noteDef[m.method], m);
			} else if (m.method) {
				validate('JSONRPCRequest', m);
			}
		} catch (e) {
			seen.problems.push(e.message);
		}
	}
	return seen;
}

// The JSON the text block of a tool result carries: the structured result, but for fs_readBytes,
// whose bytes travel in an image or resource block, the fields without the bytes.
export function textJson(r, tool) {
	const t = r.content.find((c) => c.type === 'text');
	assert.ok(t, `${tool}: no text block in ${JSON.stringify(r.content).slice(0, 300)}`);
	const j = JSON.parse(t.text);
	if (tool === 'fs_readBytes' && r.isError === false) {
		assert.equal(j.content, undefined, 'the bytes repeated in the text block');
		return { content: r.structuredContent.content, ...j };
	}
	return j;
}

// A real PNG of w x h red pixels (zlib from node).
async function png(w, h) {
	const zlib = await import('node:zlib');
	const crcTable = Array.from({ length: 256 }, (_, n) => {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		return c >>> 0;
	});
	const crc = (buf) => {
		let c = 0xffffffff;
		for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type, data) => {
		const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
		const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
		return Buffer.concat([len, td, c]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8; ihdr[9] = 2;
	const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, Buffer.from([255, 0, 0]))]);
	const raw = Buffer.concat(Array.from({ length: h }, () => row));
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
	                      chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

// Images of the four types in ws (a real PNG and GIF; a JPEG and a WebP as far as their headers,
// from the fuzz corpus), a binary file and a PNG over 10 MiB: [{ file, mime, width, height }].
export async function writeImages(ws) {
	const corpus = path.join(process.env.top_srcdir || '.', 'tests/fuzz/corpus/image');
	fs.writeFileSync(path.join(ws, 'red.png'), await png(5, 3));
	// the classic 1x1 GIF89a
	fs.writeFileSync(path.join(ws, 'dot.gif'), Buffer.from(
		'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64'));
	fs.copyFileSync(path.join(corpus, 'jpeg'), path.join(ws, 'photo.jpg'));
	fs.copyFileSync(path.join(corpus, 'webp_vp8l'), path.join(ws, 'pic.webp'));
	fs.writeFileSync(path.join(ws, 'data.bin'), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) & 255)));
	const big = await png(4, 4);
	fs.writeFileSync(path.join(ws, 'big.png'), Buffer.concat([big, Buffer.alloc(10 * 1024 * 1024 + 1 - big.length)]));
	return [{ file: 'red.png', mime: 'image/png', width: 5, height: 3 },
	        { file: 'dot.gif', mime: 'image/gif', width: 1, height: 1 },
	        { file: 'photo.jpg', mime: 'image/jpeg' }, { file: 'pic.webp', mime: 'image/webp' }];
}

// Reads every image of writeImages through callTool and checks the image blocks, the other bytes'
// resource blob and the refusal of the big PNG.
export async function checkImages(ws, callTool) {
	for (const img of await writeImages(ws)) {
		const r = await callTool({ name: 'fs_readBytes', arguments: { path: img.file } });
		assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
		const block = r.content[0];
		assert.equal(block.type, 'image', `${img.file}: ${JSON.stringify(block).slice(0, 200)}`);
		assert.equal(block.mimeType, img.mime);
		assert.ok(Buffer.from(block.data, 'base64').equals(fs.readFileSync(path.join(ws, img.file))),
		          `${img.file}: the image block is not the file`);
		assert.equal(Buffer.from(block.data, 'base64').toString('base64'), block.data, 'not canonical base64');
		assert.ok(r.structuredContent.width > 0 && r.structuredContent.height > 0, img.file);
		if (img.width) {
			assert.equal(r.structuredContent.width, img.width);
			assert.equal(r.structuredContent.height, img.height);
		}
		assert.deepEqual(textJson(r, 'fs_readBytes'), r.structuredContent);
	}
	for (const [file, args] of [['data.bin', {}], ['red.png', { offset: 8, length: 20 }], ['a.txt', {}]]) {
		const r = await callTool({ name: 'fs_readBytes', arguments: { path: file, ...args } });
		assert.equal(r.isError, false);
		const block = r.content[0];
		assert.equal(block.type, 'resource', `${file}: ${JSON.stringify(block).slice(0, 200)}`);
		assert.equal(block.resource.uri, 'file://' + fs.realpathSync(ws) + '/' + file);
		assert.equal(block.resource.mimeType, r.structuredContent.mimeType);
		const want = fs.readFileSync(path.join(ws, file)).subarray(args.offset || 0,
			(args.offset || 0) + (args.length || 1e9));
		assert.ok(Buffer.from(block.resource.blob, 'base64').equals(want), `${file}: the blob is not the file`);
	}
	const big = await callTool({ name: 'fs_readBytes', arguments: { path: 'big.png' } });
	assert.equal(big.isError, true);
	assert.equal(big.structuredContent.errorCode, 'TooLarge');
	assert.match(big.content[0].text, /10 MiB/);
	assert.ok(!big.content.some((c) => c.type === 'image'));
}

// Lists, pages and reads the workspace's files as resources through a real client (list(cursor),
// read(uri), templates(), pagesSent(): resources/list responses seen): every file once, text as text, bytes as a blob that decodes to the file.
export async function checkResources(ws, { list, read, templates, pagesSent }) {
	const real = fs.realpathSync(ws);
	for (let i = 0; i < 205; i++)
		fs.writeFileSync(path.join(ws, `r${String(i).padStart(3, '0')}.txt`), `line ${i}\n`);
	const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 31) & 255));
	fs.writeFileSync(path.join(ws, 'z.bin'), bytes);
	const want = fs.readdirSync(ws).filter((n) => !n.startsWith('.') &&
		fs.statSync(path.join(ws, n)).isFile()).map((n) => `file://${real}/${n}`).sort();
	const seen = [];
	let cursor, pages = 0;
	do {
		const r = await list(cursor);
		pages++;
		seen.push(...r.resources.map((x) => x.uri));
		cursor = r.nextCursor;
	} while (cursor && pages < 50);
	// (SDK v2 may gather the pages itself: then count the responses hermes sent)
	assert.ok(pagesSent() >= 2, `${pagesSent()} page(s), ${pages} asked for`);
	assert.deepEqual(seen.filter((u) => !u.includes('/olddir/')), want);
	const t = await read(`file://${real}/r007.txt`);
	assert.equal(t.contents[0].text, 'line 7\n');
	const b = await read(`file://${real}/z.bin`);
	assert.ok(Buffer.from(b.contents[0].blob, 'base64').equals(bytes));
	const tpl = await templates();
	assert.equal(tpl.resourceTemplates[0].uriTemplate, `file://${real}/{+path}`);
	await assert.rejects(read(`file://${real}/missing.txt`), /NotFound/);
}
