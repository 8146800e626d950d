// tests/json_schema.mjs: the JSON Schemas generated from the verb table, checked with a real
// validator (Ajv, draft 2020-12) against the real decoder and encoder: for every verb, arguments
// the input schema accepts are decoded by `hermes exec` (exit status other than 2), arguments it
// refuses (a required field missing, an unknown field, a wrong type, an integer out of range) are
// refused by `hermes exec` too (status 2, InvalidArguments), and real results, successes and
// failures, match the output schema. Run by tests/json_schema.sh.
import { createRequire } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const req = createRequire(path.join(process.env.MCP_SDK_DIR, 'package.json'));
const Ajv2020 = req('ajv/dist/2020').default;
const hermes = process.env.HERMES;
const ajv = new Ajv2020({ strict: false, allErrors: true });

let failed = 0, checks = 0;
function check(ok, what) {
	checks++;
	if (!ok) {
		failed++;
		console.log(`FAIL: ${what}`);
	}
}

const all = JSON.parse(execFileSync(hermes, ['schema', '--format=json-schema']));
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-json-schema.'));
fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n');

function exec(verb, args) {
	const r = spawnSync(hermes, ['exec', '--root', ws, '-'], {
		input: JSON.stringify({ verb, arguments: args }), encoding: 'utf8' });
	let out = null;
	try { out = JSON.parse(r.stdout); } catch { /* checked by the caller */ }
	return { status: r.status, out };
}

function resolve(schema, s) {
	return s && s.$ref ? schema.$defs[s.$ref.split('/').pop()] : s;
}

function typeOf(s) {
	return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
}

// A valid value for a property schema.
function good(schema, s) {
	s = resolve(schema, s);
	switch (typeOf(s)) {
	case 'string': return 'a.txt';
	case 'integer': return 1;
	case 'boolean': return false;
	case 'array': return [];
	case 'object': return minimal(schema, s);
	}
	return null;
}

function minimal(schema, obj) {
	const out = {};
	for (const name of obj.required || [])
		out[name] = good(schema, obj.properties[name]);
	return out;
}

// A value of the wrong type for a property schema.
function wrong(schema, s) {
	s = resolve(schema, s);
	return { string: 123, integer: 'one', boolean: 'yes', array: { x: 1 }, object: [1] }[typeOf(s)];
}

for (const { name, inputSchema, outputSchema } of all) {
	let vin, vout;
	try {
		vin = ajv.compile(inputSchema);
		vout = ajv.compile(outputSchema);
	} catch (e) {
		check(false, `${name}: a schema does not compile: ${e.message}`);
		continue;
	}
	// accepted by the schema -> decoded by hermes exec
	const base = minimal(inputSchema, inputSchema);
	const full = { ...base };
	for (const [k, s] of Object.entries(inputSchema.properties))
		if (!(k in full)) full[k] = s.default !== undefined ? s.default : good(inputSchema, s);
	for (const [label, args] of [['required fields', base], ['every field', full]]) {
		check(vin(args), `${name} (${label}): the schema refuses ${JSON.stringify(args)}: ${JSON.stringify(vin.errors)}`);
		const r = exec(name, args);
		check(r.status !== 2, `${name} (${label}): hermes exec refuses what the schema accepts: ${JSON.stringify(args)} -> ${JSON.stringify(r.out)}`);
		if (r.out)
			check(vout(r.out), `${name} (${label}): the result does not match outputSchema: ${JSON.stringify(r.out)} ${JSON.stringify(vout.errors)}`);
	}
	// refused by the schema -> refused by hermes exec
	const bad = [['an unknown field', { ...base, bogusField: 1 }]];
	for (const f of inputSchema.required || []) {
		const b = { ...base };
		delete b[f];
		bad.push([`without ${f}`, b]);
	}
	for (const [k, s] of Object.entries(inputSchema.properties)) {
		bad.push([`${k} of the wrong type`, { ...base, [k]: wrong(inputSchema, s) }]);
		const t = resolve(inputSchema, s);
		if (typeOf(t) === 'integer')
			bad.push([`${k} out of range`, { ...base, [k]: t.maximum + 1 }]);
	}
	for (const [label, args] of bad) {
		check(!vin(args), `${name} (${label}): the schema accepts ${JSON.stringify(args)}`);
		const r = exec(name, args);
		check(r.status === 2 && r.out && r.out.errorCode === 'InvalidArguments',
		      `${name} (${label}): hermes exec accepts what the schema refuses: ${JSON.stringify(args)} -> ${r.status} ${JSON.stringify(r.out)}`);
	}
}

// real results, success and failure, against the output schemas
const byName = Object.fromEntries(all.map((v) => [v.name, ajv.compile(v.outputSchema)]));
for (const [verb, args, ok] of [
	['fs.exists', { path: 'a.txt' }, true],
	['fs.readRange', { path: 'a.txt', startLine: 1, endLine: 2 }, true],
	['fs.listDir', { path: '.' }, true],
	['sys.machineInfo', {}, true],
	['fs.readFile', { path: 'missing.txt' }, false],
	['proc.run', { executable: 'sh', arguments: ['-c', 'exit 3'] }, true],
	['proc.run', { executable: 'sh', arguments: ['-c', 'sleep 5'], timeoutSeconds: 1 }, false],
]) {
	const r = exec(verb, args);
	check(r.out && r.out.succeeded === ok, `${verb}: ${JSON.stringify(r.out)}`);
	check(r.out && byName[verb](r.out), `${verb}: the result does not match outputSchema: ${JSON.stringify(r.out)} ${JSON.stringify(byName[verb].errors)}`);
}
fs.rmSync(ws, { recursive: true, force: true });
console.log(`${checks} checks on ${all.length} verbs, ${failed} failed`);
process.exit(failed ? 1 : 0);
