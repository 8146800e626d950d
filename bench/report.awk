# bench/report.awk: turns bench/compare's measurements into its table (Markdown) or, with
# -v json=1, into JSON. Input files, tab-separated: meta (key, value), rows.tsv, perf.tsv.
#
# rows.tsv: id, work, metric, goal, Hermes value, client CPU %, server CPU %, peak RSS KiB,
#   requests per run, runs, run times, reference name, reference value, client CPU %, count, runs,
#   run times, peak RSS KiB, extra (metric flat: RSS min, max KiB, samples, rate)
# perf.tsv: id, side, per (request or run), task-clock ms, context switches, page faults,
#   system calls, the most frequent ones

{ file = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3 }
file == 1 { meta[$1] = $2; next }
file == 2 { nrows++; for (i = 1; i <= 19; i++) R[nrows, i] = $i; if ($1 ~ /^code/) code_rows = 1; next }
file == 3 { nperf++; for (i = 1; i <= 8; i++) P[nperf, i] = $i; next }

# x to 3 significant digits, no exponent
function sig(x) {
	if (x >= 100) return sprintf("%.0f", x)
	if (x >= 10) return sprintf("%.1f", x)
	return sprintf("%.2f", x)
}
function secs(s) {
	if (s < 1e-3) return sig(s * 1e6) " µs"
	if (s < 1) return sig(s * 1e3) " ms"
	return sig(s) " s"
}
function rate(r) {
	if (r >= 1e6) return sig(r / 1e6) "M req/s"
	if (r >= 1e3) return sig(r / 1e3) "k req/s"
	return sig(r) " req/s"
}
function mib(kib) { return kib == "" || kib < 0 ? "—" : sprintf("%.1f MiB", kib / 1024) }
function value(metric, v) {
	if (v == "") return "—"
	if (metric == "rate") return rate(v)
	if (metric == "rtt") return secs(v / 1e6)
	return secs(v)
}
# reference time / Hermes time ("" without a reference)
function speedup(metric, hv, rv) {
	if (hv == "" || rv == "" || hv + 0 <= 0 || rv + 0 <= 0) return ""
	return metric == "rate" ? hv / rv : rv / hv
}
function ratio(s) {
	if (s == "") return "—"
	return s >= 1 ? sig(s) "× faster" : sig(1 / s) "× slower"
}
# one goal condition (faster>=30, time<=0.8, rate>=200000, us<=20, ms<=1, flat<=1.10, adds<=1:
# Hermes' time exceeds the reference's by at most 10% or 1 ms, whichever is larger) in words
function cond_text(c,    k, op, x) {
	k = c; sub(/[<>]=.*/, "", k); op = substr(c, length(k) + 1, 2); x = substr(c, length(k) + 3)
	op = op == ">=" ? "≥" : "≤"
	if (k == "faster") return op " " x "× faster"
	if (k == "time") return x < 1 ? "≥ " sprintf("%.3g", 1 / x) "× faster (" x "× the time)" : "≤ " x "× slower"
	if (k == "rate") return op " " (x >= 1000 ? x / 1000 "k" : x) " req/s"
	if (k == "us") return op " " x " µs"
	if (k == "ms") return op " " x " ms"
	if (k == "flat") return "max/min " op " " x
	if (k == "adds") return "adds " op " 10% or " op " " x " ms"
	return c
}
# 1 if condition c holds, 0 if not, -1 if it cannot be told (no reference)
function cond_ok(c, hv, s,    k, op, x, v) {
	k = c; sub(/[<>]=.*/, "", k); op = substr(c, length(k) + 1, 2); x = substr(c, length(k) + 3) + 0
	if (k == "adds") {
		# Hermes' time less the reference's, within 10% of the reference or x ms, the larger
		if (s == "") return -1
		v = hv - s * hv
		return v <= (x / 1000 > 0.1 * s * hv ? x / 1000 : 0.1 * s * hv)
	}
	if (k == "faster" || k == "time") {
		if (s == "") return -1
		v = k == "faster" ? s : 1 / s
	} else if (hv == "")
		return -1
	else
		v = k == "ms" ? hv * 1000 : hv
	return op == ">=" ? v >= x : v <= x
}
function goal_text(g,    n, c, i, t) {
	if (g == "-") return "—"
	n = split(g, c, " "); t = ""
	for (i = 1; i <= n; i++) t = t (i > 1 ? ", " : "") cond_text(c[i])
	return t
}
# "yes", "no", "?" (some part cannot be told), "" (no goal)
function goal_met(g, hv, s,    n, c, i, r, unknown) {
	if (g == "-") return ""
	n = split(g, c, " "); unknown = 0
	for (i = 1; i <= n; i++) {
		r = cond_ok(c[i], hv, s)
		if (r == 0) return "no"
		if (r < 0) unknown = 1
	}
	return unknown ? "?" : "yes"
}
function count(x) { return x == "" ? "—" : sprintf(x >= 100 ? "%.0f" : "%.3g", x) }
# (slowest run - fastest run) / median run, of a comma-separated list of run times
function spread(l,    n, a, i, lo, hi, m) {
	if (l == "") return ""
	n = split(l, a, ",")
	lo = hi = a[1] + 0
	for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
	for (i = 1; i <= n; i++) a[i] += 0
	m = median(a, n)
	return m > 0 ? 100 * (hi - lo) / m : ""
}
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function pct(p) { return p == "" ? "—" : sprintf("%.0f%%", p) }
function js(s) { gsub(/\\/, "&&", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function jn(x) { return x == "" ? "null" : sprintf("%.6g", x) }
function jlist(s,    n, a, i, t) {
	if (s == "") return "[]"
	n = split(s, a, ","); t = "["
	for (i = 1; i <= n; i++) t = t (i > 1 ? ", " : "") sprintf("%.6g", a[i])
	return t "]"
}
# the row's Hermes figure: for "flat", max/min of the RSS samples
function hermes_value(r,    e) {
	if (R[r, 3] != "flat") return R[r, 5]
	split(R[r, 19], e, " ")
	return e[1] > 0 ? e[2] / e[1] : ""
}

END {
	if (json) print_json(); else print_table()
}

function print_table(    r, hv, s, g, met, ref, rp, e, p) {
	printf "bench/compare, %s mode, %s\n\n", meta["mode"], meta["date"]
	printf "- machine: %s processors (%s), %s, %s RAM; files on %s\n", meta["nproc"], meta["cpu"],
		meta["kernel"], meta["memory"], meta["storage"]
	printf "- load average (1, 5, 15 min): %s at the start, %s at the end\n", meta["load_start"], meta["load_end"]
	printf "- versions: %s (%s); node %s; %s; %s; bench/ at %s\n", meta["hermes"], meta["hermes_path"],
		meta["node"], meta["mcp_server"] == "" ? "MCP server not installed" : meta["mcp_server"],
		meta["coreutils"], meta["bench_commit"]
	printf "- big file %s; medians of %s timed runs per row (%s on the big file); server memory over %s requests\n\n",
		meta["big_file"], meta["runs"], meta["bulk_runs"], meta["rss_requests"]
	print "| work | Hermes | reference | ratio now | goal | met | client CPU (Hermes / ref) | run spread (Hermes / ref) | Hermes peak RSS |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (r = 1; r <= nrows; r++) {
		hv = hermes_value(r); s = R[r, 3] == "flat" ? "" : speedup(R[r, 3], hv, R[r, 13])
		g = R[r, 4]; met = goal_met(g, hv, s)
		ref = R[r, 12] == "" ? "—" : R[r, 12] (R[r, 13] == "" ? "" : ": " value(R[r, 3], R[r, 13]))
		if (R[r, 3] == "flat") {
			split(R[r, 19], e, " ")
			printf "| %s | %s–%s over the run (%s) | — | max/min %.3f | %s | %s | %s / — | — | %s |\n", R[r, 2],
				mib(e[1]), mib(e[2]), rate(e[4]), hv, goal_text(g), met, pct(R[r, 6]), mib(R[r, 8])
			continue
		}
		printf "| %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s |\n", R[r, 2], value(R[r, 3], hv), ref,
			ratio(s), goal_text(g), met == "" ? "—" : met, pct(R[r, 6]), pct(R[r, 14]), pct(spread(R[r, 11])),
			pct(spread(R[r, 17])), mib(R[r, 8])
	}
	print ""
	print "- Hermes: one `hermes serve --framing=ndjson` per row, requests from bench/client.c through pipes,"
	print "  1 in flight unless the row says otherwise; a figure is a run's wall time over its requests."
	print "  MCP: the filesystem server under node, the same client, after its initialize handshake."
	print "  Commands: started afresh by the client (posix_spawn) for every run, output drained through a pipe."
	print "- ratio: reference time / Hermes time (Hermes rate / reference rate); goal: issue 11's, in the same terms."
	print "- client CPU: the client's own CPU time over the measurement's wall time (near 100% would mean the"
	print "  client, not the server, set the pace). run spread: (slowest run - fastest) / median run."
	print "- fs.readRange is asked for lines -10..-1 (counted from the end, read backwards). The MCP"
	print "  server's tail=10 returns 9 lines of a file that ends with a newline."
	print "- fs.copyFile fsyncs the copy before it appears, hence `cp && sync FILE` as its like-for-like reference;"
	print "  every copy starts after sync(2), with the source in the page cache (as for every big-file row)."
	print "- GET/PUT /files: curl on loopback to `hermes mcp --listen` (the HTTP rows' server), 100 MB of random"
	print "  bytes, medians of the bulk runs after a warm-up; a PUT fsyncs the file before it is renamed into place."
	print "- write to its fs.changes event: bench/watch_latency.py (hermes serve over stdio, a fs.changes waiting"
	print "  when the file is written); no reference."
	if (code_rows) print "- code.*: bench/code_latency.py, N warm calls (quick: 50, else 200) of one `hermes serve` against the"
	if (code_rows) print "  same LSP requests sent straight to the server by its own client, both on a copy of the tests' corpus."
	if (meta["mode"] == "quick")
		print "- quick mode: the big-file rows ran on " meta["big_file"] ", with fewer requests: indicative only."
	if (nperf == 0) return
	print ""
	print "Counts (--perf), per request of a Hermes server row (perf stat: during a timed run; strace -c: a"
	print "whole session less one that answers a single fs.exists), per run of a command (the whole process,"
	print "after a warm-up run)."
	print ""
	print "| row | side | per | task-clock | context switches | page faults | system calls | most frequent |"
	print "|---|---|---|---|---|---|---|---|"
	for (p = 1; p <= nperf; p++)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", P[p, 1], P[p, 2], P[p, 3],
			P[p, 4] == "" ? "—" : secs(P[p, 4] / 1000), count(P[p, 5]), count(P[p, 6]), count(P[p, 7]),
			P[p, 8] == "" ? "—" : P[p, 8]
}

function print_json(    r, hv, s, g, met, e, p, unit) {
	print "{"
	printf "  \"benchmark\": \"bench/compare\",\n  \"mode\": %s,\n  \"date\": %s,\n", js(meta["mode"]), js(meta["date"])
	printf "  \"machine\": {\"nproc\": %s, \"cpu\": %s, \"kernel\": %s, \"memory\": %s, \"storage\": %s, ",
		jn(meta["nproc"]), js(meta["cpu"]), js(meta["kernel"]), js(meta["memory"]), js(meta["storage"])
	printf "\"load_start\": %s, \"load_end\": %s},\n", js(meta["load_start"]), js(meta["load_end"])
	printf "  \"versions\": {\"hermes\": %s, \"hermes_path\": %s, \"bench_commit\": %s, \"node\": %s, ",
		js(meta["hermes"]), js(meta["hermes_path"]), js(meta["bench_commit"]), js(meta["node"])
	printf "\"mcp_server\": %s, \"coreutils\": %s},\n",
		meta["mcp_server"] == "" ? "null" : js(meta["mcp_server"]), js(meta["coreutils"])
	printf "  \"parameters\": {\"big_file\": %s, \"runs\": %s, \"bulk_runs\": %s, \"rss_requests\": %s},\n",
		js(meta["big_file"]), jn(meta["runs"]), jn(meta["bulk_runs"]), jn(meta["rss_requests"])
	print "  \"rows\": ["
	for (r = 1; r <= nrows; r++) {
		hv = hermes_value(r); s = R[r, 3] == "flat" ? "" : speedup(R[r, 3], hv, R[r, 13])
		g = R[r, 4]; met = goal_met(g, hv, s)
		unit = R[r, 3] == "rate" ? "requests/s" : R[r, 3] == "rtt" ? "µs" : R[r, 3] == "time" ? "s" : "max/min"
		printf "    {\"id\": %s, \"work\": %s, \"metric\": %s, \"unit\": %s,\n", js(R[r, 1]), js(R[r, 2]),
			js(R[r, 3]), js(unit)
		printf "     \"hermes\": {\"value\": %s, \"client_cpu_pct\": %s, \"server_cpu_pct\": %s, \"peak_rss_kib\": %s, ",
			jn(hv), jn(R[r, 6]), jn(R[r, 7]), jn(R[r, 8])
		printf "\"count\": %s, \"runs\": %s, \"runs_s\": %s", jn(R[r, 9]), jn(R[r, 10]), jlist(R[r, 11])
		if (R[r, 3] == "flat") {
			split(R[r, 19], e, " ")
			printf ", \"rss_min_kib\": %s, \"rss_max_kib\": %s, \"rss_samples_kib\": %s, \"rate\": %s",
				jn(e[1]), jn(e[2]), jlist(e[3]), jn(e[4])
		}
		printf "},\n"
		if (R[r, 12] == "" || R[r, 13] == "")
			printf "     \"reference\": %s,\n", R[r, 12] == "" ? "null" : "{\"name\": " js(R[r, 12]) ", \"value\": null}"
		else
			printf "     \"reference\": {\"name\": %s, \"value\": %s, \"client_cpu_pct\": %s, \"count\": %s, \"runs\": %s, \"runs_s\": %s, \"peak_rss_kib\": %s},\n",
				js(R[r, 12]), jn(R[r, 13]), jn(R[r, 14]), jn(R[r, 15]), jn(R[r, 16]), jlist(R[r, 17]), jn(R[r, 18])
		printf "     \"speedup\": %s, \"goal\": %s}%s\n", jn(s),
			g == "-" ? "null" : "{\"conditions\": " js(g) ", \"text\": " js(goal_text(g)) ", \"met\": " (met == "yes" ? "true" : met == "no" ? "false" : "null") "}",
			r < nrows ? "," : ""
	}
	print "  ],"
	print "  \"perf\": ["
	for (p = 1; p <= nperf; p++)
		printf "    {\"row\": %s, \"side\": %s, \"per\": %s, \"task_clock_ms\": %s, \"context_switches\": %s, \"page_faults\": %s, \"syscalls\": %s, \"most_frequent\": %s}%s\n",
			js(P[p, 1]), js(P[p, 2]), js(P[p, 3]), jn(P[p, 4]), jn(P[p, 5]), jn(P[p, 6]), jn(P[p, 7]), js(P[p, 8]),
			p < nperf ? "," : ""
	print "  ]"
	print "}"
}
