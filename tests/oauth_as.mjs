// tests/oauth_as.mjs: a real OAuth 2.1 authorization server for the OAuth tests: oidc-provider
// (from npm, pinned, installed outside the tree under HERMES_OIDC_DIR) on loopback, issuing JWT
// access tokens with the client-credentials grant for a resource indicator (RFC 8707).
// Usage: node tests/oauth_as.mjs KEYS.json   (a private JWK Set; its first key signs)
// Prints one line, {"issuer": "http://127.0.0.1:PORT"}, once it listens; stops on SIGTERM or when
// its standard input closes (so a test that dies never leaves it behind).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.HERMES_OIDC_DIR;
const { default: Provider } = await import(
	pathToFileURL(path.join(dir, 'node_modules/oidc-provider/lib/index.js')).href);

const jwks = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const port = Number(process.argv[3] || 0);
const scopes = 'hermes:read hermes:write hermes:exec';

// The issuer must be known before listening: take a free port first when none is given.
const net = await import('node:net');
const chosen = port || await new Promise((resolve) => {
	const probe = net.createServer().listen(0, '127.0.0.1', () => {
		const p = probe.address().port;
		probe.close(() => resolve(p));
	});
});
const issuer = `http://127.0.0.1:${chosen}`;
const provider = new Provider(issuer, {
	jwks,
	clients: [{
		client_id: 'hermes-test',
		client_secret: 'hermes-test-secret',
		grant_types: ['client_credentials'],
		redirect_uris: [],
		response_types: [],
		scope: scopes,
		id_token_signed_response_alg: jwks.keys[0].alg || 'ES256',
	}],
	scopes: scopes.split(' '),
	features: {
		devInteractions: { enabled: false },
		clientCredentials: { enabled: true },
		introspection: { enabled: false },
		resourceIndicators: {
			enabled: true,
			defaultResource: () => undefined,
			getResourceServerInfo: (ctx, resource) => ({
				scope: scopes,
				audience: resource,
				accessTokenTTL: 300,
				accessTokenFormat: 'jwt',
				jwt: { sign: { alg: jwks.keys[0].alg || 'ES256' } },
			}),
		},
	},
});
provider.proxy = false;

// Test-only: POST /test/mint {header, claims, foreign} signs any claims with the issuer's own key
// (or, foreign: true, with a key the issuer never published), so that a test can make the tokens a
// real server would not issue (expired, another audience or issuer) and see each refused.
const { SignJWT, importJWK, generateKeyPair } = await import(
	pathToFileURL(path.join(dir, 'node_modules/jose/dist/webapi/index.js')).href);
const own = await importJWK(jwks.keys[0], jwks.keys[0].alg || 'ES256');
const { privateKey: foreign } = await generateKeyPair(jwks.keys[0].alg || 'ES256');
provider.use(async (ctx, next) => {
	if (ctx.path !== '/test/mint' || ctx.method !== 'POST')
		return next();
	let raw = '';
	for await (const chunk of ctx.req)
		raw += chunk;
	const { header, claims, foreign: useForeign } = JSON.parse(raw);
	ctx.body = { token: await new SignJWT(claims).setProtectedHeader(header)
		.sign(useForeign ? foreign : own) };
});
const http = provider.listen(chosen, '127.0.0.1', () => {
	process.stdout.write(JSON.stringify({ issuer }) + '\n');
});
const stop = () => http.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
